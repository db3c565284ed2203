import type { ObjectId } from 'mongodb';
import type { ExecutionTrigger } from '../domain/execution.js';
import { publishStatusEvents, statusEvent } from '../transitions/statusEvents.js';
import { errorMessage } from '../logger.js';
import type { WaitingSelection } from '../store/executionStore.js';
import type { JobDeps } from './jobDeps.js';

/** The `reason` of executions cancelled by a job lifecycle operation. */
export const CANCEL_REASONS = {
  scheduleChanged: 'schedule changed',
  paused: 'job paused',
  deleted: 'job deleted',
} as const;

/** Executions that come from the schedule; a manual one is not the schedule's to cancel. */
export const SCHEDULE_TRIGGERS: readonly ExecutionTrigger[] = ['SCHEDULE', 'CATCH_UP'];

/**
 * Cancels a job's not-yet-started executions matching `selection` (compare-and-set on their status,
 * so one a worker has started keeps running), removes their queue entries and publishes a
 * CANCELLED event for each. MongoDB is the record: a queue entry that cannot be removed is only
 * logged, since a worker drops a CANCELLED execution when it gets to it. Returns how many it cancelled.
 */
export async function cancelPendingExecutions(
  deps: Pick<JobDeps, 'executions' | 'queues' | 'events' | 'logger'>,
  jobId: ObjectId,
  selection: WaitingSelection,
  reason: string,
  now: Date,
): Promise<number> {
  const cancelled = await deps.executions.cancelWaiting(jobId, selection, reason, now);
  if (cancelled.length === 0) return 0;
  const removals = await Promise.allSettled(
    cancelled.map(({ execution, previousStatus }) =>
      // A retry round has its own entry id (see waitingEntryId).
      deps.queues.remove(
        { executionId: execution._id.toHexString(), tenantId: execution.tenantId, workload: execution.workload },
        previousStatus,
        execution.attempt,
      ),
    ),
  );
  const failures = removals.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failures.length > 0) {
    deps.logger.warn('could not remove cancelled executions from the queue; workers will drop them', {
      count: failures.length,
      error: errorMessage(failures[0].reason),
    });
  }
  await publishStatusEvents(
    deps.events,
    deps.logger,
    cancelled.map(({ execution, previousStatus }) => statusEvent(execution, previousStatus, 'CANCELLED', now)),
  );
  return cancelled.length;
}
