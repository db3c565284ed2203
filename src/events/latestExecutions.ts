import type { ExecutionDoc } from '../domain/execution.js';
import type { ExecutionEventMessage } from './executionEventBus.js';
import { carriedExecution, executionAfter, executionAsOf } from './executionAsOf.js';
import { RelayedEvent, relayKey } from './relayedEvent.js';

/** Loads an execution as stored, through a tenant-scoped store (null when it is gone). */
export type ReadExecution = (executionId: string) => Promise<ExecutionDoc | null>;

/**
 * An event's resolution, started on first demand (a subscriber pulling the event, or the
 * execution's next event needing the state it left) and shared after: an event no subscriber gets
 * to (its buffer dropped it, its stream closed) costs no read, and a tenant's reads in flight stay
 * bounded by its subscribers, each pulling one event at a time.
 */
export type LazyRelayed = () => Promise<RelayedEvent | null>;

interface Latest {
  /** The relayKey of the execution's last relayed event. */
  key: string;
  /** That event as relayed (null: the execution was not found). */
  relayed: LazyRelayed;
}

/** `start`, run once, on the first call. */
function onDemand<T>(start: () => Promise<T>): () => Promise<T> {
  let started: Promise<T> | null = null;
  return () => (started ??= start());
}

/**
 * The execution as of each event the api process relays: carried by the event (an insert's), else
 * derived from the one relayed for the execution's previous event (a worker's RUNNING and end
 * events: executionAfter), else read. Before, every RUNNING and end event cost a read: half the
 * statements of an execution while anyone watched. Keeps the last relayed event (its key and its
 * resolution) of the `maxExecutions` most recently relayed executions, in memory: an execution's next
 * event starts from it, waiting for it while it is still being read, and the same event again (an
 * equal key, whatever the object) is given it instead of a second read.
 */
export class LatestExecutions {
  private readonly latest = new Map<string, Latest>();

  /** @param maxExecutions Executions whose last state is kept at most (about 1 KiB each); the least recently relayed goes first. Default 5 000. */
  constructor(private readonly maxExecutions = 5000) {}

  /** The execution as of `event`, or null when it is not found; `read` is called only when neither the event nor the last state gives it. */
  resolve(event: ExecutionEventMessage, read: ReadExecution): LazyRelayed {
    const execution = `${event.tenantId}:${event.executionId}`;
    const key = relayKey(event);
    const previous = this.latest.get(execution);
    if (previous?.key === key) return previous.relayed;
    const relayed = onDemand(() => {
      const resolving = this.relay(event, previous?.relayed ?? null, read);
      // A failed read is its subscribers' error; one that none of them awaits any more must not crash the process.
      void resolving.catch(() => undefined);
      return resolving;
    });
    this.latest.delete(execution);
    this.latest.set(execution, { key, relayed });
    if (this.latest.size > this.maxExecutions) this.latest.delete(this.latest.keys().next().value!);
    return relayed;
  }

  private async relay(event: ExecutionEventMessage, previous: LazyRelayed | null, read: ReadExecution): Promise<RelayedEvent | null> {
    let doc = carriedExecution(event);
    if (!doc && previous) {
      // Events of one execution arrive in order: the previous one is the state this event moved from, once known.
      const known = await previous().catch(() => null);
      doc = known && executionAfter(known.execution, event);
    }
    if (!doc) {
      const stored = await read(event.executionId);
      doc = stored && executionAsOf(stored, event);
    }
    return doc ? new RelayedEvent(event, doc) : null;
  }
}
