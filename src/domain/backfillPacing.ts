import type { JobDoc } from './job.js';

/** How a backfill's executions are spread out: BACKFILL_EXECUTIONS_PER_SECOND, and the job's overlap policy and timeout. */
export interface BackfillPace {
  /** Executions of one backfill call started a second at most. */
  perSecond: number;
}

/**
 * When each of a backfill's `count` new executions is due to start (its queue entry's delay), the
 * first at `now`: one every 1/perSecond s, so a backfill never lands on the workers as one burst and
 * the tenant's live occurrences, due meanwhile, enter the queue between its executions instead of
 * behind all of them. A job whose overlap policy is not ALLOW gets one every `timeoutSeconds` at
 * least (the longest an attempt runs), so that its backfilled occurrences do not overlap one another
 * and the policy never skips, holds or cancels one of them for another; an attempt that is retried
 * can still overlap the next, and then the policy decides as for any occurrence. Pure.
 */
export function backfillDueTimes(
  job: Pick<JobDoc, 'overlapPolicy' | 'timeoutSeconds'>,
  count: number,
  pace: BackfillPace,
  now: Date,
): Date[] {
  const spacingMs = Math.max(1000 / pace.perSecond, job.overlapPolicy === 'ALLOW' ? 0 : job.timeoutSeconds * 1000);
  return Array.from({ length: count }, (_, i) => new Date(now.getTime() + Math.round(i * spacingMs)));
}
