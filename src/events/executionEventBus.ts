import type { RedisClient } from '../redis/redisClient.js';
import type { AttemptEnd, ExecutionStatus } from '../domain/execution.js';

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
   * document and it is small (transitions/statusEvents.ts, withExecution): subscribers relay it without a read.
   */
  execution?: string;
  /**
   * On a worker's end event, when small: what the end wrote (transitions/statusEvents.ts, withAttemptEnd), so a
   * subscriber that relayed the execution as of its RUNNING event applies it instead of reading it.
   */
  end?: EventAttemptEnd;
}

/** An attempt's end as an event carries it: the attempt, and AttemptEnd with nextAttemptAt as ISO text. */
export type EventAttemptEnd = Omit<AttemptEnd, 'nextAttemptAt'> & { attempt: number; nextAttemptAt: string | null };

type Listener = (event: ExecutionEventMessage) => void;

/** Events in one PUBLISH at most (each up to ~8 KiB with its carried execution: see transitions/statusEvents.ts). */
const EVENTS_PER_MESSAGE = 100;

/**
 * The execution event bus on Redis pub/sub. Publishing uses the shared command connection (owned
 * by the caller); subscribing opens one dedicated connection, owned here and closed by `close()`.
 * Redis delivers one publisher's messages in order, and each execution's transitions are published
 * by whoever holds it at the time, after its write, so one execution's events arrive in order.
 * One Redis subscription per process, however many subscribers: listeners are kept per tenant, so
 * an event costs its own tenant's listeners, not every open subscription of the process. The api's
 * subscribers listen through RelayedExecutions, one listener per tenant that works each event out once.
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
   * Publishes `events` as one message per EVENTS_PER_MESSAGE (an array; a single event alone, as
   * before batching): a materialising pass or a create publishes hundreds at once, and one PUBLISH
   * each queued every other command of the shared connection behind them (a tenant's burst of 60
   * creates sent 3,000 in a second). In one round trip on an auto-pipelined connection (kairos.ts
   * makes the shared one so), where other executions' events of the same moment join it. Losing an
   * event is tolerated (MongoDB stays the truth), so errors are the caller's to log.
   */
  async publish(events: ExecutionEventMessage[]): Promise<void> {
    const messages: string[] = [];
    for (let i = 0; i < events.length; i += EVENTS_PER_MESSAGE) {
      const batch = events.slice(i, i + EVENTS_PER_MESSAGE);
      messages.push(JSON.stringify(batch.length === 1 ? batch[0] : batch));
    }
    await Promise.all(messages.map((message) => this.redis.publish(this.channel, message)));
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
        let parsed: ExecutionEventMessage | ExecutionEventMessage[];
        try {
          parsed = JSON.parse(raw) as ExecutionEventMessage | ExecutionEventMessage[];
        } catch {
          return;
        }
        for (const event of Array.isArray(parsed) ? parsed : [parsed]) {
          const own = this.listeners.get(event.tenantId);
          if (own) for (const l of own) l(event);
        }
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
