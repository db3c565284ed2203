import type { ExecutionEventMessage } from './executionEventBus.js';
import { eventStream } from './eventStream.js';
import { LatestExecutions, type LazyRelayed, type ReadExecution } from './latestExecutions.js';
import type { RelayedEvent } from './relayedEvent.js';
import type { TenantEvents } from './tenantEvents.js';

/** One subscriber of the relay: what it wants, and how its tenant's executions are read. */
export interface RelaySubscriber {
  /** Whether it wants `event` (its filters: jobId, statuses); an event no subscriber wants is not worked out. */
  accept(event: ExecutionEventMessage): boolean;
  /** Loads an execution as stored through the subscriber's tenant-scoped store, for all the subscribers that want the event. */
  read: ReadExecution;
}

interface Taker {
  subscriber: RelaySubscriber;
  /** Queues the event's resolution for this subscriber, behind the ones before it (started when it pulls it). */
  deliver(relayed: LazyRelayed): void;
}

/** A tenant's subscribers on this process, and the one bus listener they share (resolves with its unsubscribe). */
interface Channel {
  takers: Set<Taker>;
  listening: Promise<() => void>;
}

/**
 * The api process's relay of execution events to its subscribers: one bus listener per tenant with
 * subscribers here, which works out each event that any of them wants once (the execution as of the
 * event: carried, derived from the state relayed before it, or read; LatestExecutions) and hands
 * that one resolution to every subscriber that wants it. So a tenant's subscribers cost at most one
 * read per event, and none when the event carries the execution or this process relayed the state
 * it moved from, by construction here rather than by how the bus shares its objects.
 */
export class RelayedExecutions {
  private readonly tenants = new Map<string, Channel>();
  private readonly latest: LatestExecutions;

  /** @param maxExecutions Executions whose last relayed state is kept at most (LatestExecutions). Default 5 000. */
  constructor(maxExecutions = 5000) {
    this.latest = new LatestExecutions(maxExecutions);
  }

  /**
   * The events of `events`' tenant that `subscriber` accepts, each with the execution as of it, in
   * arrival order; an event whose execution is not found (deleted since) is left out, and a failed
   * read fails the stream's `next()`. Buffered while the consumer is busy (see eventStream).
   */
  async stream(
    events: Pick<TenantEvents, 'tenantId' | 'subscribe'>,
    subscriber: RelaySubscriber,
    maxBuffered?: number,
  ): Promise<AsyncIterableIterator<RelayedEvent>> {
    const queued = await eventStream<LazyRelayed>((deliver) => this.join(events, { subscriber, deliver }), maxBuffered);
    const iterator: AsyncIterableIterator<RelayedEvent> = {
      next: async () => {
        for (;;) {
          const step = await queued.next();
          if (step.done) return { value: undefined, done: true };
          const relayed = await step.value();
          if (relayed) return { value: relayed, done: false };
        }
      },
      return: async () => {
        await queued.return!();
        return { value: undefined, done: true };
      },
      throw: async (error?: unknown) => {
        await queued.return!();
        throw error;
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /** Adds `taker` to its tenant's channel, opening the channel's bus listener for the first; resolves with its leaving. */
  private async join(events: Pick<TenantEvents, 'tenantId' | 'subscribe'>, taker: Taker): Promise<() => void> {
    const { tenantId } = events;
    let channel = this.tenants.get(tenantId);
    if (!channel) {
      const takers = new Set<Taker>();
      channel = { takers, listening: events.subscribe((event) => this.relay(takers, event)) };
      this.tenants.set(tenantId, channel);
    }
    const own = channel;
    own.takers.add(taker);
    const leave = () => {
      if (!own.takers.delete(taker) || own.takers.size > 0 || this.tenants.get(tenantId) !== own) return;
      this.tenants.delete(tenantId);
      // Resolved by now (join awaited it); a listener that never opened has nothing to remove.
      void own.listening.then(
        (unsubscribe) => unsubscribe(),
        () => undefined,
      );
    };
    try {
      await own.listening;
    } catch (error) {
      leave();
      throw error;
    }
    return leave;
  }

  /** One event of a tenant: worked out once, if any of its subscribers wants it, and queued for each that does. */
  private relay(takers: Set<Taker>, event: ExecutionEventMessage): void {
    const wanting = [...takers].filter((t) => t.subscriber.accept(event));
    if (wanting.length === 0) return;
    const reader = wanting[0].subscriber;
    const relayed = this.latest.resolve(event, (executionId) => reader.read(executionId));
    for (const taker of wanting) taker.deliver(relayed);
  }
}
