import type { ExecutionDoc } from '../domain/execution.js';
import type { ExecutionEventMessage } from './executionEventBus.js';

/**
 * Names one event by what it says: its tenant, execution, instant, transition and attempt. A
 * publisher sends each transition of an execution once, so two messages with the same key are the
 * same event (one message received twice, or parsed into two objects), and caches of per-event work
 * key on this rather than on an object.
 */
export function relayKey(event: ExecutionEventMessage): string {
  const attempt = event.attempt?.number ?? event.end?.attempt ?? '';
  return `${event.tenantId}:${event.executionId}:${event.occurredAt}:${event.previousStatus ?? ''}>${event.status}:${attempt}`;
}

/** What a subscriber is told of an event besides the execution: the event without what it carried to work the execution out. */
export type RelayedStatusChange = Omit<ExecutionEventMessage, 'execution' | 'end'>;

/**
 * An event as the api process relays it to its subscribers, with the execution as of that event
 * (RelayedExecutions works it out once per event for all of the tenant's subscribers).
 */
export class RelayedEvent {
  /** The event's relayKey: what sharedSubscribe keeps each audience's result of this event under. */
  readonly key: string;
  /** The event, without its carried execution or attempt end (up to 8 KiB each, and now in `execution`). */
  readonly event: RelayedStatusChange;

  constructor(
    message: ExecutionEventMessage,
    readonly execution: ExecutionDoc,
  ) {
    this.key = relayKey(message);
    const { execution: _carried, end: _end, ...event } = message;
    this.event = event;
  }
}

/** The key to share work on a subscription payload by: a relayed event's key, or null for any other value (not shared). */
export function relayedEventKey(payload: unknown): string | null {
  return payload instanceof RelayedEvent ? payload.key : null;
}
