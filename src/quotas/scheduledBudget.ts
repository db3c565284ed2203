import type { RateLimiter } from './rateLimiter.js';
import type { TenantQuotas } from './tenantQuotas.js';

/**
 * The rate bucket scheduled occurrences are counted in. It is not the API's `writes` bucket: a
 * tenant whose schedules spend their whole budget can still pause or change its jobs.
 */
export const SCHEDULED_BUCKET = 'scheduled';

/**
 * A tenant's budget of scheduled executions: maxExecutionsPerMinute occurrences a minute, in bursts
 * of up to a minute's worth (the GCRA bucket of rateLimiter.ts), charged when the scheduler
 * materialises them. Occurrences past it are recorded SKIPPED with `overBudgetReason` instead of
 * running, so a tenant's schedules cannot load the workers beyond its budget for everyone else.
 */
export class ScheduledBudget {
  constructor(
    private readonly rates: RateLimiter,
    private readonly quotas: TenantQuotas,
  ) {}

  /** Charges up to `wanted` occurrences of the tenant; returns how many may run and the budget. */
  async charge(tenantId: string, wanted: number): Promise<{ allowed: number; perMinute: number }> {
    const { maxExecutionsPerMinute: perMinute } = await this.quotas.of(tenantId);
    return { allowed: await this.rates.takeUpTo(SCHEDULED_BUCKET, tenantId, perMinute, wanted), perMinute };
  }
}

const OVER_BUDGET = "over the tenant's budget of";

/**
 * The reason occurrences past the budget are recorded SKIPPED with: `count` consecutive occurrences
 * of one job from `first` to `last` (one record, scheduler/budgetSkips.ts), or one alone.
 */
export function overBudgetReason(perMinute: number, count = 1, first?: Date, last?: Date): string {
  const budget = `${OVER_BUDGET} ${perMinute} scheduled executions per minute (maxExecutionsPerMinute)`;
  return count > 1 && first && last ? `${occurrences(count, first, last)} ${budget}` : budget;
}

/**
 * `reason` (an overBudgetReason, or any reason of a record of many occurrences that starts the same
 * way, as an exclusion's does) restated for a record cut down to `count` occurrences from `first` to `last`.
 */
export function recountedReason(reason: string, count: number, first: Date, last: Date): string {
  const why = reason.replace(/^\d+ occurrences from \S+ to \S+ /, '');
  return count > 1 ? `${occurrences(count, first, last)} ${why}` : why;
}

function occurrences(count: number, first: Date, last: Date): string {
  return `${count} occurrences from ${first.toISOString()} to ${last.toISOString()}`;
}
