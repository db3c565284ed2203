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
 * materialises them. An occurrence past it is recorded SKIPPED with `reason(perMinute)` instead of
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

/** The reason an occurrence past the budget is recorded SKIPPED with. */
export function overBudgetReason(perMinute: number): string {
  return `over the tenant's budget of ${perMinute} scheduled executions per minute (maxExecutionsPerMinute)`;
}
