import type { MaterialiseDeps } from './materialise.js';
import { materialise } from './materialise.js';

export interface SweepOptions {
  /** How far ahead occurrences are materialised (DESIGN.md: 30 s). */
  lookAheadMs: number;
  /** Jobs read and materialised per batch. Default 100 (larger batches stalled FerretDB 1.24). */
  batchSize?: number;
  /** Batches per sweep at most, so one sweep cannot run unbounded; the rest waits a second. Default 50. */
  maxBatches?: number;
  /** Occurrences older than now minus this were missed and follow the misfire policy. */
  misfireThresholdMs: number;
}

/**
 * One pass of the leader's `sweep-due-jobs`: asks MongoDB which jobs are due before
 * now + look-ahead on the `{status, scheduleCursor}` index, in batches, and materialises them.
 */
export async function sweepDueJobs(
  deps: MaterialiseDeps,
  now: Date,
  fencingToken: number,
  options: SweepOptions,
): Promise<{ jobs: number; executions: number }> {
  const batchSize = options.batchSize ?? 100;
  const horizon = new Date(now.getTime() + options.lookAheadMs);
  let jobs = 0;
  let executions = 0;
  for (let batch = 0; batch < (options.maxBatches ?? 50); batch++) {
    const due = await deps.store.findDueJobs(horizon, batchSize);
    if (due.length === 0) break;
    const result = await materialise(deps, due, now, horizon, fencingToken, options.misfireThresholdMs);
    jobs += due.length;
    executions += result.executions;
    if (due.length < batchSize) break;
  }
  return { jobs, executions };
}
