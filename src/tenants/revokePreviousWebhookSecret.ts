import type { TenantDoc } from '../domain/tenant.js';
import type { OwnTenantStore } from '../store/ownTenantStore.js';

/**
 * Ends the grace of the secret the last rotation replaced: from the next attempt on, deliveries are
 * signed with the current secret alone. Doing it again, or without a previous secret, changes nothing.
 * Returns the tenant as it now is.
 */
export async function revokePreviousWebhookSecret(
  tenant: Pick<OwnTenantStore, 'ensure' | 'revokePreviousWebhookSecret'>,
  now: Date,
): Promise<TenantDoc> {
  const before = await tenant.ensure(now);
  await tenant.revokePreviousWebhookSecret();
  return { ...before, previousWebhookSecret: undefined, previousWebhookSecretExpiresAt: undefined };
}
