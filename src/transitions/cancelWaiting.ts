import type { ExecutionStatus, ExecutionTrigger } from '../domain/execution.js';
import type { ExecutionEventMessage } from '../events/executionEventBus.js';
import { errorMessage, type Logger } from '../logger.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';
import type { CancelledExecution, WaitingCanceller, WaitingSelection } from '../store/waitingCancels.js';
import { publishStatusEvents, statusEvent, type StatusPublisher } from './statusEvents.js';

/** Not started yet: what a pause, a schedule change or a pass whose job stopped takes back (a RETRYING execution has run). */
export const UNSTARTED: readonly ExecutionStatus[] = ['SCHEDULED', 'QUEUED'];
/** Waiting for an attempt, its first or a retry: what a delete or a user's cancel ends. */
export const PENDING: readonly ExecutionStatus[] = ['SCHEDULED', 'QUEUED', 'RETRYING'];
/** Executions that come from the schedule; a manual one is not the schedule's to cancel. */
export const SCHEDULE_TRIGGERS: readonly ExecutionTrigger[] = ['SCHEDULE', 'CATCH_UP'];

export interface CancelWaitingDeps {
  /** The tenant's ExecutionStore (the API's cancels) or the scheduler's SchedulerStore (a pass whose job stopped). */
  store: WaitingCanceller;
  queues: Pick<ExecutionQueues, 'remove'>;
  events: StatusPublisher;
  logger: Logger;
}

/**
 * → CANCELLED with `reason` for the executions `selection` picks that have not started (a
 * compare-and-set on the status and attempt each was read with, so one a worker has started keeps
 * running); removes their queue entries and publishes a CANCELLED event for each. MongoDB is the
 * record: a queue entry that cannot be removed is only logged, since a worker drops a CANCELLED
 * execution when it gets to it. Returns the executions it cancelled and their events.
 */
export async function cancelWaiting(
  deps: CancelWaitingDeps,
  selection: WaitingSelection,
  reason: string,
  now: Date,
): Promise<{ cancelled: CancelledExecution[]; events: ExecutionEventMessage[] }> {
  const cancelled = await deps.store.cancelWaiting(selection, 'CANCELLED', reason, now);
  if (cancelled.length === 0) return { cancelled, events: [] };
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
  const events = cancelled.map(({ execution, previousStatus }) => statusEvent(execution, previousStatus, 'CANCELLED', now));
  await publishStatusEvents(deps.events, deps.logger, events);
  return { cancelled, events };
}
