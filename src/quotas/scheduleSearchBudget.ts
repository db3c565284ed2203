import { RateLimitedError } from '../errors/index.js';
import type { ProcessSearchBudget } from './processSearchBudget.js';
import type { RateLimiter } from './rateLimiter.js';

/** The rate bucket previewSchedule's searches are counted in. */
export const SEARCHES_BUCKET = 'schedule-searches';

/**
 * How long a burst of searches may be: the bucket holds what 10 s refill, so a tenant cannot save up
 * a minute of searches and spend them in one go on the API's main thread.
 */
const BURST_MS = 10_000;

/**
 * A tenant's budget of schedule searches asked for by previewSchedule (one per occurrence asked), on top
 * of the cost limit that bounds one request: each search runs on the API's main thread (up to about
 * 200 µs for the rarest cron allowed), so without a rate a tenant sending the costliest preview back
 * to back holds the event loop every other tenant's requests wait on (docs/architecture.md, "Fair share").
 * The process's own budget is checked first, since many tenants inside their budgets share one loop.
 */
export class ScheduleSearchBudget {
  /**
   * @param perMinute Searches one tenant may ask for a minute, in bursts of what 10 s refill
   *   (SCHEDULE_SEARCHES_PER_MINUTE, default 3000: 50 a second, three previews of 100 at once).
   * @param processBudget Searches this process answers for all tenants together.
   */
  constructor(
    private readonly rates: RateLimiter,
    private readonly perMinute: number,
    private readonly processBudget: ProcessSearchBudget,
  ) {}

  /** Takes `searches` from the process's and the tenant's budgets, or throws RATE_LIMITED (taking none) past either. */
  async charge(tenantId: string, searches: number): Promise<void> {
    const waitMs = this.processBudget.take(searches);
    if (waitMs > 0) {
      const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
      throw new RateLimitedError(
        `The server is answering its limit of ${this.processBudget.perSecond} schedule searches a second for all tenants; retry after ${retryAfterSeconds} s`,
        retryAfterSeconds,
      );
    }
    try {
      await this.rates.take(SEARCHES_BUCKET, tenantId, this.perMinute, searches, { burstMs: BURST_MS, what: 'schedule searches' });
    } catch (error) {
      this.processBudget.giveBack(searches);
      throw error;
    }
  }
}
