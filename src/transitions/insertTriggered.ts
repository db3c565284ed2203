import { ObjectId } from 'mongodb';
import { newExecution, type ExecutionDoc } from '../domain/execution.js';
import type { JobDoc } from '../domain/job.js';
import type { ExecutionEventMessage } from '../events/executionEventBus.js';
import { errorMessage, type Logger } from '../logger.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';
import type { ExecutionStore } from '../store/executionStore.js';
import { enqueueQueued, publishInserted, queuedOnInsert } from './queueInserted.js';
import type { StatusPublisher } from './statusEvents.js';

export interface InsertTriggeredDeps {
  executions: Pick<ExecutionStore, 'insert'>;
  queues: Pick<ExecutionQueues, 'enqueue'>;
  events: StatusPublisher;
  logger: Logger;
}

/**
 * A manual run of `job`: a MANUAL execution due at `now` (occurrence key `manual:<its id>`) with
 * `payloadJson` overriding the job's (null: the job's), inserted already QUEUED in one write; its
 * SCHEDULED and QUEUED events are published as the materialiser's are, and it is enqueued without
 * delay. Should the enqueue fail, it is only logged: the scheduler's reconcile enqueues the
 * execution later. Returns the execution and its events.
 */
export async function insertTriggered(
  deps: InsertTriggeredDeps,
  job: JobDoc,
  payloadJson: string | null,
  now: Date,
): Promise<{ execution: ExecutionDoc; events: ExecutionEventMessage[] }> {
  const _id = new ObjectId();
  const fresh = newExecution(
    {
      _id,
      tenantId: job.tenantId,
      jobId: job._id,
      occurrenceKey: `manual:${_id.toHexString()}`,
      trigger: 'MANUAL',
      workload: job.workload,
      scheduledFor: now,
      maxAttempts: job.retryPolicy.maxAttempts,
      payloadJson,
    },
    now,
  );
  const execution = await deps.executions.insert(queuedOnInsert(fresh, now));
  const events = await publishInserted(deps, [execution], now);
  try {
    await enqueueQueued(deps, [execution], () => job);
  } catch (error) {
    deps.logger.warn('could not enqueue a manual execution; reconcile will', { error: errorMessage(error) });
  }
  return { execution, events };
}
