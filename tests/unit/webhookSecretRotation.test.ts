// Covers: src/domain/webhookSecretRotation.ts, src/tenants/rotateWebhookSecret.ts, src/tenants/revokePreviousWebhookSecret.ts
import { describe, expect, it } from '@jest/globals';
import type { TenantDoc } from '../../src/domain/tenant.js';
import { BadUserInputError, ConflictError } from '../../src/errors/index.js';
import {
  DEFAULT_GRACE_PERIOD_SECONDS,
  MAX_GRACE_PERIOD_SECONDS,
  previousSecretExpiresAt,
  previousSecretExpiry,
  signingSecrets,
} from '../../src/domain/webhookSecretRotation.js';
import { revokePreviousWebhookSecret } from '../../src/tenants/revokePreviousWebhookSecret.js';
import { rotateWebhookSecret } from '../../src/tenants/rotateWebhookSecret.js';
import type { ChangeEntry } from '../../src/domain/change.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const EXPIRES = new Date('2026-03-02T12:00:00.000Z');
const at = (ms: number) => new Date(EXPIRES.getTime() + ms);
const rotated = { webhookSecret: 'new', previousWebhookSecret: 'old', previousWebhookSecretExpiresAt: EXPIRES };

describe('the grace of a rotated webhook secret', () => {
  it('is a day by default and at most 7 days; 0 means none', () => {
    expect(DEFAULT_GRACE_PERIOD_SECONDS).toBe(86_400);
    expect(previousSecretExpiry(NOW, DEFAULT_GRACE_PERIOD_SECONDS)).toEqual(EXPIRES);
    expect(previousSecretExpiry(NOW, MAX_GRACE_PERIOD_SECONDS)).toEqual(new Date('2026-03-08T12:00:00.000Z'));
    expect(previousSecretExpiry(NOW, 1)).toEqual(new Date('2026-03-01T12:00:01.000Z'));
    expect(previousSecretExpiry(NOW, 0)).toBeNull();
  });

  it.each([-1, MAX_GRACE_PERIOD_SECONDS + 1, 1.5, Number.NaN])('refuses %p, naming gracePeriodSeconds', (seconds) => {
    expect(() => previousSecretExpiry(NOW, seconds)).toThrow(BadUserInputError);
    expect(() => previousSecretExpiry(NOW, seconds)).toThrow(
      expect.objectContaining({ details: { field: 'gracePeriodSeconds' }, message: expect.stringContaining('604800 (7 days)') }),
    );
  });

  it('signs with the new secret then the previous until the expiry instant, and with the new one alone from it on', () => {
    expect(signingSecrets(rotated, at(-1))).toEqual(['new', 'old']);
    expect(previousSecretExpiresAt(rotated, at(-1))).toEqual(EXPIRES);
    expect(signingSecrets(rotated, at(0))).toEqual(['new']);
    expect(previousSecretExpiresAt(rotated, at(0))).toBeNull();
    expect(signingSecrets(rotated, at(1))).toEqual(['new']);
  });

  it('signs with the one secret of a tenant never rotated, or rotated without a grace', () => {
    expect(signingSecrets({ webhookSecret: 'only' }, NOW)).toEqual(['only']);
    expect(previousSecretExpiresAt({ webhookSecret: 'only' }, NOW)).toBeNull();
  });
});

/** An OwnTenantStore over one record in memory, whose write fails while `lost` says another rotation came first. */
function ownTenant(record: Partial<TenantDoc>, lost = 0) {
  const doc = { _id: 't1', webhookSecret: 'initial', ...record } as TenantDoc;
  let losses = lost;
  const recorded: ChangeEntry[] = [];
  return {
    tenantId: 't1',
    doc,
    /** The change entries the operations recorded. */
    recorded,
    changes: { record: async (entry: ChangeEntry) => void recorded.push(entry) },
    ensure: async () => ({ ...doc }),
    rotateWebhookSecret: async (current: string, secret: string, previousExpiresAt: Date | null, now: Date) => {
      if (losses > 0) {
        losses--;
        doc.webhookSecret = `theirs-${losses}`;
        return false;
      }
      if (doc.webhookSecret !== current) return false;
      Object.assign(doc, { webhookSecret: secret, webhookSecretRotatedAt: now });
      if (previousExpiresAt) Object.assign(doc, { previousWebhookSecret: current, previousWebhookSecretExpiresAt: previousExpiresAt });
      else Object.assign(doc, { previousWebhookSecret: undefined, previousWebhookSecretExpiresAt: undefined });
      return true;
    },
    revokePreviousWebhookSecret: async () => {
      Object.assign(doc, { previousWebhookSecret: undefined, previousWebhookSecretExpiresAt: undefined });
    },
  };
}

/** The operations' dependencies over a tenant of ownTenant. */
function withChanges(tenant: ReturnType<typeof ownTenant>) {
  return { tenant, changes: tenant.changes };
}

describe('rotateWebhookSecret and revokePreviousWebhookSecret', () => {
  it('keeps the replaced secret for the grace; a second rotation replaces that previous secret with the current one', async () => {
    const tenant = ownTenant({});
    expect(await rotateWebhookSecret(withChanges(tenant), NOW, undefined, () => 's1')).toEqual({
      secret: 's1',
      previousSecretExpiresAt: EXPIRES,
    });
    expect(signingSecrets(tenant.doc, NOW)).toEqual(['s1', 'initial']);
    await rotateWebhookSecret(withChanges(tenant), NOW, 60, () => 's2');
    expect(signingSecrets(tenant.doc, NOW)).toEqual(['s2', 's1']);
    expect(tenant.doc.previousWebhookSecretExpiresAt).toEqual(new Date('2026-03-01T12:01:00.000Z'));
    await rotateWebhookSecret(withChanges(tenant), NOW, 0, () => 's3');
    expect(signingSecrets(tenant.doc, NOW)).toEqual(['s3']);
    // One change entry per rotation; the ChangeLog redacts the secrets it carries (changeDiff.test.ts).
    expect(tenant.recorded.map((e) => [e.action, e.target, e.after?.previousWebhookSecretExpiresAt])).toEqual([
      ['ROTATE_WEBHOOK_SECRET', { type: 'TENANT', id: 't1' }, EXPIRES],
      ['ROTATE_WEBHOOK_SECRET', { type: 'TENANT', id: 't1' }, new Date('2026-03-01T12:01:00.000Z')],
      ['ROTATE_WEBHOOK_SECRET', { type: 'TENANT', id: 't1' }, null],
    ]);
  });

  it('refuses a bad grace before changing anything', async () => {
    const tenant = ownTenant({});
    await expect(rotateWebhookSecret(withChanges(tenant), NOW, MAX_GRACE_PERIOD_SECONDS + 1, () => 's1')).rejects.toBeInstanceOf(
      BadUserInputError,
    );
    expect(tenant.doc.webhookSecret).toBe('initial');
  });

  it('reads again when another rotation replaced the secret meanwhile, and keeps that one as the previous', async () => {
    const tenant = ownTenant({}, 1);
    await rotateWebhookSecret(withChanges(tenant), NOW, undefined, () => 'mine');
    expect(signingSecrets(tenant.doc, NOW)).toEqual(['mine', 'theirs-0']);
    await expect(rotateWebhookSecret(withChanges(ownTenant({}, 3)), NOW, undefined, () => 'mine')).rejects.toBeInstanceOf(ConflictError);
  });

  it('revoking ends the grace at once, and again changes nothing', async () => {
    const tenant = ownTenant(rotated);
    expect(previousSecretExpiresAt(await revokePreviousWebhookSecret(withChanges(tenant), NOW), NOW)).toBeNull();
    expect(signingSecrets(tenant.doc, NOW)).toEqual(['new']);
    expect(previousSecretExpiresAt(await revokePreviousWebhookSecret(withChanges(tenant), NOW), NOW)).toBeNull();
    expect(tenant.doc.webhookSecret).toBe('new');
    // Only the revoke that ended a grace is recorded.
    expect(tenant.recorded.map((e) => e.action)).toEqual(['REVOKE_PREVIOUS_WEBHOOK_SECRET']);
  });
});
