import type { Clock } from '../clock.js';

/**
 * This api process's budget of schedule searches, over every tenant together: `perSecond` searches a
 * second, in bursts of one second's worth. Each tenant's own budget (ScheduleSearchBudget) keeps one
 * tenant from holding the event loop, but forty tenants each inside theirs still could: the searches
 * all run on this process's main thread, so the process counts them too. In memory, like
 * EventDeliveryBudget: the work it bounds is this process's.
 */
export class ProcessSearchBudget {
  private tokens: number;
  private at: number;

  /**
   * @param perSecond Searches this process answers a second for all tenants together
   *   (SCHEDULE_SEARCHES_PER_SECOND_PER_PROCESS, default 500: at about 200 µs for the costliest
   *   search, a tenth of the event loop).
   */
  constructor(
    readonly perSecond: number,
    private readonly clock: Clock,
  ) {
    this.tokens = perSecond;
    this.at = clock().getTime();
  }

  /** Takes `searches` and returns 0, or takes none and returns how many ms until they would fit. */
  take(searches: number): number {
    this.refill();
    if (this.tokens >= searches) {
      this.tokens -= searches;
      return 0;
    }
    return Math.ceil(((searches - this.tokens) * 1000) / this.perSecond);
  }

  /** Returns searches taken for a request that was then refused for another reason. */
  giveBack(searches: number): void {
    this.refill();
    this.tokens = Math.min(this.perSecond, this.tokens + searches);
  }

  private refill(): void {
    const now = this.clock().getTime();
    this.tokens = Math.min(this.perSecond, this.tokens + (Math.max(0, now - this.at) * this.perSecond) / 1000);
    this.at = now;
  }
}
