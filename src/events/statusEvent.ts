import type { ExecutionDoc, ExecutionStatus } from '../domain/execution.js';
import type { Logger } from '../logger.js';
import { errorMessage } from '../logger.js';
import type { ExecutionEventBus, ExecutionEventMessage } from './executionEventBus.js';

/** The event of one execution moving from `previousStatus` to `status`. */
export function statusEvent(
  execution: Pick<ExecutionDoc, '_id' | 'tenantId' | 'jobId'>,
  previousStatus: ExecutionStatus | null,
  status: ExecutionStatus,
  at: Date,
): ExecutionEventMessage {
  return {
    tenantId: execution.tenantId,
    executionId: execution._id.toHexString(),
    jobId: execution.jobId.toHexString(),
    previousStatus,
    status,
    occurredAt: at.toISOString(),
  };
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
