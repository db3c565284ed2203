import type { RedisClient } from '../redis/redisClient.js';
import type { ExecutionStatus } from '../domain/execution.js';

/** A status change of one execution, as published on Redis and relayed to subscribers. */
export interface ExecutionEventMessage {
  tenantId: string;
  executionId: string;
  jobId: string;
  previousStatus: ExecutionStatus | null;
  status: ExecutionStatus;
  occurredAt: string;
  /** On a worker's RUNNING event: the attempt that started, and where (its start may not be in MongoDB yet). */
  attempt?: { number: number; workerId: string };
  /**
   * The execution as its publisher just wrote it (Extended JSON), when the publisher had the whole
   * document and it is small (statusEvent.ts, withExecution): subscribers relay it without a read.
   */
  execution?: string;
}

type Listener = (event: ExecutionEventMessage) => void;

/**
 * The execution event bus on Redis pub/sub. Publishing uses the shared command connection (owned
 * by the caller); subscribing opens one dedicated connection, owned here and closed by `close()`.
 * Redis delivers one publisher's messages in order, and each execution's transitions are published
 * by whoever holds it at the time, after its write, so one execution's events arrive in order.
 * One Redis subscription per process, however many subscribers: listeners are kept per tenant, so
 * an event costs its own tenant's listeners, not every open subscription of the process.
 */
export class ExecutionEventBus {
  private subscriber: RedisClient | null = null;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly channel: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.channel = `${prefix}:execution-events`;
  }

  /**
   * Publishes in one round trip on an auto-pipelined connection (kairos.ts makes the shared one so),
   * where other executions' events of the same moment join it; an explicit pipeline could not be
   * merged with them. Losing an event is tolerated (MongoDB stays the truth), so errors are the caller's to log.
   */
  async publish(events: ExecutionEventMessage[]): Promise<void> {
    await Promise.all(events.map((event) => this.redis.publish(this.channel, JSON.stringify(event))));
  }

  /** Calls `listener` with each event of `tenantId`; the returned function unsubscribes it. */
  async subscribe(tenantId: string, listener: Listener): Promise<() => void> {
    let own = this.listeners.get(tenantId);
    if (!own) this.listeners.set(tenantId, (own = new Set()));
    own.add(listener);
    const unsubscribe = () => {
      own.delete(listener);
      if (own.size === 0 && this.listeners.get(tenantId) === own) this.listeners.delete(tenantId);
    };
    if (!this.subscriber) {
      this.subscriber = this.redis.duplicate();
      // ioredis reconnects by itself and resubscribes; without a listener it would print every retry.
      this.subscriber.on('error', () => undefined);
      this.subscriber.on('message', (_channel: string, raw: string) => {
        let event: ExecutionEventMessage;
        try {
          event = JSON.parse(raw) as ExecutionEventMessage;
        } catch {
          return;
        }
        const own = this.listeners.get(event.tenantId);
        if (own) for (const l of own) l(event);
      });
      await this.subscriber.subscribe(this.channel);
    }
    return unsubscribe;
  }

  async close(): Promise<void> {
    this.listeners.clear();
    const subscriber = this.subscriber;
    this.subscriber = null;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }
}
