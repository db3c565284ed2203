import type { Redis } from 'ioredis';
import type { ExecutionStatus } from '../domain/execution.js';

/** A status change of one execution, as published on Redis and relayed to subscribers. */
export interface ExecutionEventMessage {
  tenantId: string;
  executionId: string;
  jobId: string;
  previousStatus: ExecutionStatus | null;
  status: ExecutionStatus;
  occurredAt: string;
}

type Listener = (event: ExecutionEventMessage) => void;

/**
 * The execution event bus on Redis pub/sub. Publishing uses the shared command connection (owned
 * by the caller); subscribing opens one dedicated connection, owned here and closed by `close()`.
 * Redis delivers one publisher's messages in order, and each execution's transitions are published
 * by whoever holds it at the time, after its write, so one execution's events arrive in order.
 */
export class ExecutionEventBus {
  private subscriber: Redis | null = null;
  private readonly listeners = new Set<Listener>();
  private readonly channel: string;

  constructor(private readonly redis: Redis, prefix: string) {
    this.channel = `${prefix}:execution-events`;
  }

  /** Publishes in one round trip. Losing an event is tolerated (MongoDB stays the truth), so errors are the caller's to log. */
  async publish(events: ExecutionEventMessage[]): Promise<void> {
    if (events.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const event of events) pipeline.publish(this.channel, JSON.stringify(event));
    await pipeline.exec();
  }

  async subscribe(listener: Listener): Promise<() => void> {
    this.listeners.add(listener);
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
        for (const l of this.listeners) l(event);
      });
      await this.subscriber.subscribe(this.channel);
    }
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    const subscriber = this.subscriber;
    this.subscriber = null;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }
}
