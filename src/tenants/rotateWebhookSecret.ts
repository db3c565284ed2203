import type { OwnTenantStore } from '../store/ownTenantStore.js';
import { ConflictError } from '../errors/index.js';
import { newWebhookSecret } from '../domain/webhookSecret.js';
import { DEFAULT_GRACE_PERIOD_SECONDS, previousSecretExpiry } from '../domain/webhookSecretRotation.js';
import type { ChangeRecorder } from '../changes/changeLog.js';

/** Tries before giving up when other rotations keep replacing the secret between the read and the write. */
const ATTEMPTS = 3;

export interface RotatedWebhookSecret {
  /** The new secret: the only time it is shown. */
  secret: string;
  /** Until when the replaced secret also signs deliveries; null without a grace. */
  previousSecretExpiresAt: Date | null;
}

/**
 * Replaces the tenant's webhook signing secret and returns the new one. The replaced secret keeps
 * signing deliveries, after the new one, for `gracePeriodSeconds` (0 to 7 days; default a day), so
 * receivers can move to the new secret without refusing a delivery meanwhile. Workers read the
 * secrets from the tenant record at each attempt, so the next attempt signs with the new one.
 * The change record says that the secret changed, and the grace's end, never a secret.
 */
export async function rotateWebhookSecret(
  { tenant, changes }: { tenant: Pick<OwnTenantStore, 'ensure' | 'rotateWebhookSecret' | 'tenantId'>; changes: ChangeRecorder },
  now: Date,
  gracePeriodSeconds: number = DEFAULT_GRACE_PERIOD_SECONDS,
  newSecret: () => string = newWebhookSecret,
): Promise<RotatedWebhookSecret> {
  const previousSecretExpiresAt = previousSecretExpiry(now, gracePeriodSeconds);
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const before = await tenant.ensure(now);
    const secret = newSecret();
    if (await tenant.rotateWebhookSecret(before.webhookSecret, secret, previousSecretExpiresAt, now)) {
      await changes.record({
        action: 'ROTATE_WEBHOOK_SECRET',
        target: { type: 'TENANT', id: tenant.tenantId },
        jobId: null,
        before: {
          webhookSecret: before.webhookSecret,
          previousWebhookSecret: before.previousWebhookSecret,
          previousWebhookSecretExpiresAt: before.previousWebhookSecretExpiresAt,
        },
        after: {
          webhookSecret: secret,
          previousWebhookSecret: previousSecretExpiresAt ? before.webhookSecret : null,
          previousWebhookSecretExpiresAt: previousSecretExpiresAt,
        },
        details: { gracePeriodSeconds },
        at: now,
      });
      return { secret, previousSecretExpiresAt };
    }
  }
  throw new ConflictError('The webhook secret was rotated by other requests meanwhile; try again');
}
