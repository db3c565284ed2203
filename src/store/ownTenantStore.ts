import type { TenantDoc } from '../domain/tenant.js';
import type { TenantStore } from './tenantStore.js';

/**
 * The caller's own tenant record: the process-wide TenantStore bound to the tenant of the token,
 * built per request like the other scoped stores, so no resolver hands over a tenant id itself.
 */
export class OwnTenantStore {
  constructor(
    private readonly tenants: TenantStore,
    readonly tenantId: string,
  ) {}

  /** The tenant, created on first use with the default plan. */
  ensure(now: Date): Promise<TenantDoc> {
    return this.tenants.ensure(this.tenantId, now);
  }

  rotateWebhookSecret(current: string, secret: string, previousExpiresAt: Date | null, now: Date): Promise<boolean> {
    return this.tenants.rotateWebhookSecret(this.tenantId, current, secret, previousExpiresAt, now);
  }

  revokePreviousWebhookSecret(): Promise<void> {
    return this.tenants.revokePreviousWebhookSecret(this.tenantId);
  }
}
