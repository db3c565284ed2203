import type { RedisClient } from '../redis/redisClient.js';
import { eventStream } from './eventStream.js';

/** An alert as announced to the `alertRaised` subscribers. */
export interface AlertEventMessage {
  tenantId: string;
  /** The alert's record as raised (an AlertDoc), as extended JSON (its ids and dates kept). */
  alert: string;
}

/**
 * Raised alerts on Redis pub/sub (`alert-events`): the process that raised them publishes, each api
 * process relays them to its subscribers of the alert's tenant. A notification, not the record
 * (the `alerts` collection is): one missed while Redis was away is still in the `alerts` query.
 * Subscribes on a connection of its own, made at the first subscriber.
 */
export class AlertEventBus {
  private subscriber: RedisClient | null = null;
  private readonly listeners = new Map<string, Set<(message: AlertEventMessage) => void>>();
  private readonly channel: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.channel = `${prefix}:alert-events`;
  }

  async publish(messages: readonly AlertEventMessage[]): Promise<void> {
    if (messages.length > 0) await this.redis.publish(this.channel, JSON.stringify(messages));
  }

  /** The tenant's alerts, as an async iterator (eventStream), until it is closed. */
  stream(tenantId: string): Promise<AsyncIterableIterator<AlertEventMessage>> {
    return eventStream((push) => this.subscribe(tenantId, push));
  }

  private async subscribe(tenantId: string, listener: (message: AlertEventMessage) => void): Promise<() => void> {
    let own = this.listeners.get(tenantId);
    if (!own) this.listeners.set(tenantId, (own = new Set()));
    own.add(listener);
    if (!this.subscriber) {
      this.subscriber = this.redis.duplicate();
      this.subscriber.on('error', () => undefined);
      this.subscriber.on('message', (_channel: string, raw: string) => this.relay(raw));
      await this.subscriber.subscribe(this.channel);
    }
    return () => {
      own.delete(listener);
      if (own.size === 0 && this.listeners.get(tenantId) === own) this.listeners.delete(tenantId);
    };
  }

  private relay(raw: string): void {
    let messages: AlertEventMessage[];
    try {
      messages = JSON.parse(raw) as AlertEventMessage[];
    } catch {
      return;
    }
    for (const message of messages) for (const listener of this.listeners.get(message.tenantId) ?? []) listener(message);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    const subscriber = this.subscriber;
    this.subscriber = null;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }
}
