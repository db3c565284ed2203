import type { ObjectId } from 'mongodb';
import { EXECUTION_STATUSES, type ExecutionStatus } from '../domain/execution.js';
import { BadUserInputError } from '../errors/index.js';
import type { ExecutionStore } from '../store/executionStore.js';

/** Start lags read for the percentiles at most; a window with more executions is sampled by the first ones found. */
export const MAX_LAG_SAMPLES = 100_000;

export interface ExecutionStatsResult {
  total: number;
  byStatus: { status: ExecutionStatus; count: number }[];
  startLagMsP50: number | null;
  startLagMsP99: number | null;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Counts over executions scheduled in [since, until) (until defaults to now), and start-lag percentiles over those that started. */
export async function executionStats(
  executions: ExecutionStore,
  since: Date,
  until: Date | null,
  jobId: ObjectId | null,
  now: Date,
): Promise<ExecutionStatsResult> {
  const end = until ?? now;
  if (end <= since) throw new BadUserInputError('until must be later than since', 'until');
  const [counts, lags] = await Promise.all([
    executions.countByStatus(since, end, jobId),
    executions.startLags(since, end, jobId, MAX_LAG_SAMPLES),
  ]);
  lags.sort((a, b) => a - b);
  // In the order the statuses are declared (an execution's life), as the GraphQL enum lists them.
  const byStatus = counts.sort((a, b) => EXECUTION_STATUSES.indexOf(a.status) - EXECUTION_STATUSES.indexOf(b.status));
  return {
    total: byStatus.reduce((sum, c) => sum + c.count, 0),
    byStatus,
    startLagMsP50: percentile(lags, 50),
    startLagMsP99: percentile(lags, 99),
  };
}
