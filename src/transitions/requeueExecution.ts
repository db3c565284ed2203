import type { ExecutionDoc, ExecutionStatus } from '../domain/execution.js';
import type { JobDoc } from '../domain/job.js';
import type { ExecutionEventMessage } from '../events/executionEventBus.js';
import type { Logger } from '../logger.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';
import { queueEntry } from '../queue/queueEntry.js';
import type { ExecutionStore } from '../store/executionStore.js';
import type { ObjectId } from 'mongodb';
import { publishStatusEvents, statusEvent, type StatusPublisher } from './statusEvents.js';

/** The statuses an execution can be retried from (the API's retryExecution). */
export const RETRYABLE: readonly ExecutionStatus[] = ['FAILED', 'CANCELLED'];

export interface RequeueExecutionDeps {
  executions: Pick<ExecutionStore, 'requeueForRetry'>;
  queues: Pick<ExecutionQueues, 'enqueue'>;
  events: StatusPublisher;
  logger: Logger;
}

/**
 * A FAILED or CANCELLED execution (`current`, as read) → QUEUED for a fresh round of the job's
 * maxAttempts more attempts, run at once: a compare-and-set on the status and attempt it was read
 * with, then its QUEUED event, then its queue entry. Null, with nothing published, when it changed
 * since it was read. A bulk retry passes its id (`bulkOperationId`), written with the status, and
 * the status and attempt of its snapshot as `current`.
 */
export async function requeueExecution(
  deps: RequeueExecutionDeps,
  current: Pick<ExecutionDoc, '_id' | 'status' | 'attempt'>,
  job: JobDoc,
  now: Date,
  bulkOperationId: ObjectId | null = null,
): Promise<{ execution: ExecutionDoc; events: ExecutionEventMessage[] } | null> {
  const queued = await deps.executions.requeueForRetry(current, 'QUEUED', job.retryPolicy.maxAttempts, now, bulkOperationId);
  if (!queued) return null;
  const events = [statusEvent(queued, current.status, 'QUEUED', now)];
  await publishStatusEvents(deps.events, deps.logger, events);
  await enqueueRequeued(deps, queued, job, now);
  return { execution: queued, events };
}

/**
 * The queue entry of an execution requeued for retry (QUEUED): added by requeueExecution, and again
 * by a bulk retry resumed after a crash for an item it had requeued, whose entry may not have been
 * added before the crash (an entry of the same id already queued is left as it is, as reconcile's).
 */
export async function enqueueRequeued(
  deps: Pick<RequeueExecutionDeps, 'queues'>,
  queued: ExecutionDoc,
  job: JobDoc,
  now: Date,
): Promise<void> {
  // Round 0, the id a QUEUED execution has everywhere (reconcile, cancel): the earlier entry of that
  // id left the queue when the execution ended.
  await deps.queues.enqueue([queueEntry(queued, now, { kind: 'waiting' }, job)]);
}
