import type { OwnTenantStore } from '../store/ownTenantStore.js';
import { newWebhookSecret } from '../domain/webhookSecret.js';

/**
 * Replaces the tenant's webhook signing secret and returns the new one, the only time it is shown.
 * Workers read the secret from the tenant record at each attempt, so the next attempt signs with it.
 */
export async function rotateWebhookSecret(tenant: OwnTenantStore, now: Date, newSecret: () => string = newWebhookSecret): Promise<string> {
  await tenant.ensure(now);
  const secret = newSecret();
  await tenant.replaceWebhookSecret(secret, now);
  return secret;
}
