/**
 * How long a delivery refused a tenant slot waits before it tries again. A fixed interval made a
 * tenant's backlog poll Redis in proportion to its length (after an outage, thousands of waiters
 * every half second, which starved the attempts holding the slots); spacing tries by the queue's
 * length over the tenant's slots keeps the tries per second near `limit / baseMs`, whatever the
 * backlog, while a short queue still tries every `baseMs` (docs/architecture.md, "Fair share").
 */
export interface TenantWaitOptions {
  /** The wait when few executions wait for the tenant's slots. Default 500 ms. */
  baseMs: number;
  /** The longest wait, however long the queue. Default 10 s (below ConcurrencyLimiter's waitingTtlMs). */
  maxMs: number;
}

export const TENANT_WAIT_DEFAULTS: TenantWaitOptions = { baseMs: 500, maxMs: 10_000 };

/**
 * The wait in milliseconds for one of `waiting` executions refused one of `limit` slots, with
 * `random()` in [0, 1) adding up to half again as jitter so the waiters spread out.
 */
export function tenantWaitMs(
  waiting: number,
  limit: number,
  random: () => number,
  options: TenantWaitOptions = TENANT_WAIT_DEFAULTS,
): number {
  const spaced = options.baseMs * Math.max(1, waiting / Math.max(1, limit));
  return Math.round(Math.min(options.maxMs, spaced) * (1 + random() / 2));
}
