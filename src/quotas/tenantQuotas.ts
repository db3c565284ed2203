import type { Clock } from '../clock.js';
import type { TenantDoc } from '../domain/tenant.js';
import type { TenantStore } from '../store/tenantStore.js';
import { SharedReads } from './sharedReads.js';

export type Quota = Pick<
  TenantDoc,
  | 'maxJobs'
  | 'maxConcurrentExecutions'
  | 'maxExecutionsPerMinute'
  | 'maxWaitingExecutions'
  | 'maxSocketsPerCredential'
  | 'maxSockets'
  | 'maxSubscriptionsPerSocket'
  | 'maxSubscriptions'
>;

/**
 * The tenants' quotas as the hot paths (every mutation, every attempt) read them: from the
 * `tenants` collection, kept in memory for `cacheMs` so a quota check is not a MongoDB round trip.
 * A changed quota applies within that time.
 */
export class TenantQuotas {
  private readonly cache = new Map<string, { quota: Quota; until: number }>();

  /**
   * @param cacheMs How long a tenant's quota is reused before it is read again. Default 5 s.
   * @param maxEntries Tenants kept in memory at most; the oldest entry goes first. Default 10 000.
   */
  constructor(
    private readonly tenants: TenantStore,
    private readonly clock: Clock,
    private readonly cacheMs = 5000,
    private readonly maxEntries = 10_000,
  ) {}

  /** Requests that miss the cache together share one read of the tenant. */
  private readonly reading = new SharedReads<Quota>();

  async of(tenantId: string): Promise<Quota> {
    const now = this.clock();
    const cached = this.cache.get(tenantId);
    if (cached && cached.until > now.getTime()) return cached.quota;
    return this.reading.read(tenantId, () => this.read(tenantId, now));
  }

  private async read(tenantId: string, now: Date): Promise<Quota> {
    const tenant = await this.tenants.ensure(tenantId, now);
    const quota: Quota = {
      maxJobs: tenant.maxJobs,
      maxConcurrentExecutions: tenant.maxConcurrentExecutions,
      maxExecutionsPerMinute: tenant.maxExecutionsPerMinute,
      maxWaitingExecutions: tenant.maxWaitingExecutions,
      maxSocketsPerCredential: tenant.maxSocketsPerCredential,
      maxSockets: tenant.maxSockets,
      maxSubscriptionsPerSocket: tenant.maxSubscriptionsPerSocket,
      maxSubscriptions: tenant.maxSubscriptions,
    };
    this.cache.delete(tenantId);
    if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(tenantId, { quota, until: now.getTime() + this.cacheMs });
    return quota;
  }
}
