import { BSON } from 'mongodb';
import type { AttemptEnd, ExecutionDoc, ExecutionStatus } from '../domain/execution.js';
import type { Logger } from '../logger.js';
import { errorMessage } from '../logger.js';
import type { EventAttemptEnd, ExecutionEventBus, ExecutionEventMessage } from '../events/executionEventBus.js';

const { EJSON } = BSON;

/** The event of one execution moving from `previousStatus` to `status`. */
export function statusEvent(
  execution: Pick<ExecutionDoc, '_id' | 'tenantId' | 'jobId'>,
  previousStatus: ExecutionStatus | null,
  status: ExecutionStatus,
  at: Date,
  attempt?: ExecutionEventMessage['attempt'],
): ExecutionEventMessage {
  return {
    tenantId: execution.tenantId,
    executionId: execution._id.toHexString(),
    jobId: execution.jobId.toHexString(),
    previousStatus,
    status,
    occurredAt: at.toISOString(),
    ...(attempt ? { attempt } : {}),
  };
}

/** Larger documents (a big manual payload) are read by the subscribers instead of travelling in every event. */
const MAX_CARRIED_BYTES = 8192;

/**
 * `events` carrying `doc`, the execution as just written by their publisher (an insert: the
 * materialiser's and a trigger's), so a process relaying them to its subscribers needs no read of
 * it; serialized once for all of them. A document over MAX_CARRIED_BYTES is left out.
 */
export function withExecution(doc: ExecutionDoc, events: ExecutionEventMessage[]): ExecutionEventMessage[] {
  const execution = EJSON.stringify(doc);
  return execution.length > MAX_CARRIED_BYTES ? events : events.map((event) => ({ ...event, execution }));
}

/** `event` (a worker's end of `attempt`) carrying what the end wrote, unless that is over MAX_CARRIED_BYTES (a large result). */
export function withAttemptEnd(event: ExecutionEventMessage, attempt: number, end: AttemptEnd): ExecutionEventMessage {
  const carried: EventAttemptEnd = { ...end, attempt, nextAttemptAt: end.nextAttemptAt?.toISOString() ?? null };
  return JSON.stringify(carried).length > MAX_CARRIED_BYTES ? event : { ...event, end: carried };
}

/** The publishing half of the event bus: what a writer of executions needs, without reading anyone's events. */
export type StatusPublisher = Pick<ExecutionEventBus, 'publish'>;

/** Events are a notification, not the record (MongoDB is): a failed publish is logged and the write stands. */
export async function publishStatusEvents(bus: StatusPublisher, logger: Logger, events: ExecutionEventMessage[]): Promise<void> {
  try {
    await bus.publish(events);
  } catch (error) {
    logger.warn('could not publish execution events', { count: events.length, error: errorMessage(error) });
  }
}
