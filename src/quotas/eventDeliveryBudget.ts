import type { Clock } from '../clock.js';

/**
 * Each tenant's budget of subscription events delivered by this api process: `perSecond` tokens a
 * second, in bursts of one second's worth, one per event sent to one subscriber. Sending events is
 * the api's main-thread work (serialising and writing each), so a tenant whose subscriptions × events
 * outrun the budget would otherwise hold the event loop every other tenant's requests wait on; past
 * it, the subscription that found the budget empty ends with RATE_LIMITED (subscription.resolver.ts)
 * and the others keep theirs. In memory, like the socket counts: the work it bounds is this process's.
 */
export class EventDeliveryBudget {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  /**
   * @param perSecond Events one tenant's subscribers may be sent a second on one process
   *   (SUBSCRIPTION_EVENTS_PER_SECOND, default 1000).
   * @param maxTenants Buckets kept at most; the least recently used goes first (it only forgets a debt). Default 10 000.
   */
  constructor(
    readonly perSecond: number,
    private readonly clock: Clock,
    private readonly maxTenants = 10_000,
  ) {}

  /** Takes one delivery of the tenant's; false when its budget is spent. */
  take(tenantId: string): boolean {
    const now = this.clock().getTime();
    const bucket = this.buckets.get(tenantId) ?? { tokens: this.perSecond, at: now };
    bucket.tokens = Math.min(this.perSecond, bucket.tokens + ((now - bucket.at) * this.perSecond) / 1000);
    bucket.at = now;
    this.buckets.delete(tenantId);
    if (this.buckets.size >= this.maxTenants) this.buckets.delete(this.buckets.keys().next().value!);
    this.buckets.set(tenantId, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}
