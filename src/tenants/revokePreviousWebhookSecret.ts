import type { TenantDoc } from '../domain/tenant.js';
import type { OwnTenantStore } from '../store/ownTenantStore.js';
import type { ChangeRecorder } from '../changes/changeLog.js';

/**
 * Ends the grace of the secret the last rotation replaced: from the next attempt on, deliveries are
 * signed with the current secret alone. Doing it again, or without a previous secret, changes nothing
 * (and records nothing in the change history). Returns the tenant as it now is.
 */
export async function revokePreviousWebhookSecret(
  { tenant, changes }: { tenant: Pick<OwnTenantStore, 'ensure' | 'revokePreviousWebhookSecret' | 'tenantId'>; changes: ChangeRecorder },
  now: Date,
): Promise<TenantDoc> {
  const before = await tenant.ensure(now);
  await tenant.revokePreviousWebhookSecret();
  if (before.previousWebhookSecret) {
    await changes.record({
      action: 'REVOKE_PREVIOUS_WEBHOOK_SECRET',
      target: { type: 'TENANT', id: tenant.tenantId },
      jobId: null,
      before: {
        previousWebhookSecret: before.previousWebhookSecret,
        previousWebhookSecretExpiresAt: before.previousWebhookSecretExpiresAt,
      },
      after: { previousWebhookSecret: null, previousWebhookSecretExpiresAt: null },
      at: now,
    });
  }
  return { ...before, previousWebhookSecret: undefined, previousWebhookSecretExpiresAt: undefined };
}
