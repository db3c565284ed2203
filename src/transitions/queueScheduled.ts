import type { ExecutionDoc } from '../domain/execution.js';
import type { SchedulerStore } from '../store/schedulerStore.js';

/**
 * SCHEDULED → QUEUED for executions a materialisation pass found already there (`leftBehind`: a
 * crash before their entry was added, another pass under way, or put back in SCHEDULED by a resume
 * or schedule change), before they are enqueued again: a compare-and-set on the status, so one a
 * worker moved on meanwhile is left alone. Publishes nothing: the pass that inserted an execution
 * announced it, and repeating its events could put a QUEUED after the worker's RUNNING. Returns
 * them all as their queue entries expect them, QUEUED.
 */
export async function queueScheduled(
  deps: { store: Pick<SchedulerStore, 'markQueued'> },
  leftBehind: readonly ExecutionDoc[],
  now: Date,
): Promise<ExecutionDoc[]> {
  await deps.store.markQueued(
    leftBehind.filter((e) => e.status === 'SCHEDULED').map((e) => e._id),
    'SCHEDULED',
    'QUEUED',
    now,
  );
  return leftBehind.map((e) => ({ ...e, status: 'QUEUED' }));
}
