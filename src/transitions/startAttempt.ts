import type { ExecutionDoc } from '../domain/execution.js';
import type { ExecutionEventMessage } from '../events/executionEventBus.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';
import type { ClaimRequest } from '../store/runStore.js';
import type { Logger } from '../logger.js';
import { publishStatusEvents, statusEvent, type StatusPublisher } from './statusEvents.js';

/**
 * Where an attempt's start goes: its compare-and-set, written at once or later (the worker's
 * DeferredClaims: the Redis attempt claim holds the start meanwhile); null when one written at once missed.
 */
export interface StartWriter<C> {
  start(request: ClaimRequest): Promise<C | null>;
}

export interface StartAttemptDeps<C> {
  starts: StartWriter<C>;
  /** The execution leaves the tenant's waiting ones (maxWaitingExecutions) as it starts. */
  queues: Pick<ExecutionQueues, 'leftWaiting'>;
  events: StatusPublisher;
  logger: Logger;
}

export interface StartAttemptInput {
  /** The waiting execution as the worker expects it: its status and attempts started are the compare-and-set's. */
  run: Pick<ExecutionDoc, '_id' | 'tenantId' | 'jobId' | 'workload' | 'status' | 'attempt'>;
  /** The delivered queue entry's id, as the tenant's waiting index holds it. */
  entryId: string;
  workerId: string;
  /** How long after its start the attempt is overdue (its timeout plus the queue lock). */
  deadlineAfterMs: number;
}

/**
 * Starts attempt `run.attempt + 1` at `startedAt`: its start (waiting → RUNNING, a compare-and-set on
 * status and attempts) on its way to MongoDB, and the RUNNING event, published as the attempt starts
 * whenever its start is written (docs/architecture.md, "The deferred claim"). Null, with nothing
 * published, when a start written at once missed (the caller's picture was stale).
 */
export async function startAttempt<C>(
  deps: StartAttemptDeps<C>,
  input: StartAttemptInput,
  startedAt: Date,
): Promise<{ claim: C; event: ExecutionEventMessage } | null> {
  const { run, workerId } = input;
  const claim = await deps.starts.start({
    id: run._id,
    from: { status: run.status, attempt: run.attempt },
    workerId,
    startedAt,
    deadlineAfterMs: input.deadlineAfterMs,
  });
  if (!claim) return null;
  // Running, so no longer one of the tenant's waiting executions (maxWaitingExecutions).
  deps.queues.leftWaiting(run.workload, run.tenantId, input.entryId);
  const event = statusEvent(run, run.status, 'RUNNING', startedAt, { number: run.attempt + 1, workerId });
  await publishStatusEvents(deps.events, deps.logger, [event]);
  return { claim, event };
}
