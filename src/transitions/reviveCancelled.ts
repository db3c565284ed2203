import type { ObjectId } from 'mongodb';
import type { ExecutionStore } from '../store/executionStore.js';

/**
 * CANCELLED → SCHEDULED for the job's executions of `occurrenceKeys` that a lifecycle change
 * cancelled (reason in `reasons`) before they ever started: they hold the occurrence key, so the
 * occurrence could not be materialised again otherwise and would be lost. The next materialisation
 * finds them left behind and queues them (queueScheduled). Publishes nothing, as that queueing
 * does not: subscribers saw them CANCELLED, and see them run. Returns how many it moved.
 */
export async function reviveCancelled(
  deps: { executions: Pick<ExecutionStore, 'reviveCancelled'> },
  jobId: ObjectId,
  occurrenceKeys: readonly string[],
  reasons: readonly string[],
  now: Date,
): Promise<number> {
  return deps.executions.reviveCancelled(jobId, { occurrenceKeys, reasons, from: 'CANCELLED', to: 'SCHEDULED' }, now);
}
