import type { TenantStore } from '../store/tenantStore.js';
import { newWebhookSecret } from './webhookSecret.js';

/**
 * Replaces the tenant's webhook signing secret and returns the new one, the only time it is shown.
 * Workers read the secret from the tenant record at each attempt, so the next attempt signs with it.
 */
export async function rotateWebhookSecret(tenants: TenantStore, tenantId: string, now: Date, newSecret: () => string = newWebhookSecret): Promise<string> {
  await tenants.ensure(tenantId, now);
  const secret = newSecret();
  await tenants.replaceWebhookSecret(tenantId, secret, now);
  return secret;
}
