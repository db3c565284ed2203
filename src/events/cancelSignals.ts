import type { RedisClient } from '../redis/redisClient.js';

/** How long a cancel request waits for the attempt it targets to start. */
const REQUEST_TTL_MS = 10 * 60_000;

/** Why an attempt was aborted from outside: the reason ends up in the execution's `reason`. */
export class CancelledError extends Error {}

/** An attempt aborted because its worker is shutting down: recorded CRASHED and retried elsewhere. */
export class ShutdownError extends Error {}

/**
 * Cancellation of running attempts across worker processes: a cancel is published on Redis, and
 * the process running the execution aborts its attempt's AbortController. Publishing uses the
 * caller's connection; the subscription opens one connection of its own, closed by `close()`.
 */
export class CancelSignals {
  private readonly running = new Map<string, AbortController>();
  private subscriber: RedisClient | null = null;
  private readonly channel: string;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.channel = `${prefix}:cancel`;
  }

  async start(): Promise<void> {
    this.subscriber = this.redis.duplicate();
    // ioredis reconnects by itself and resubscribes; without a listener it would print every retry.
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('message', (_channel: string, raw: string) => {
      try {
        const { executionId, reason } = JSON.parse(raw) as { executionId: string; reason: string };
        this.running.get(executionId)?.abort(new CancelledError(reason));
      } catch {
        // A malformed message cancels nothing.
      }
    });
    await this.subscriber.subscribe(this.channel);
  }

  private requestKey(executionId: string): string {
    return `${this.channel}:${executionId}`;
  }

  /**
   * Registers a running attempt; the returned function unregisters it. A cancel published just
   * before the registration would be missed, so the request is also kept in Redis and checked here.
   */
  track(executionId: string, controller: AbortController): () => void {
    this.running.set(executionId, controller);
    this.redis.get(this.requestKey(executionId)).then(
      (reason) => {
        if (reason !== null) controller.abort(new CancelledError(reason));
      },
      () => undefined,
    );
    return () => {
      if (this.running.get(executionId) === controller) this.running.delete(executionId);
    };
  }

  /** Aborts every attempt running in this process (shutdown past its drain timeout). */
  abortAll(): void {
    for (const controller of this.running.values()) controller.abort(new ShutdownError('the worker shut down before the attempt finished'));
  }

  /** Asks whichever worker runs `executionId` to abort its current attempt. */
  async cancel(executionId: string, reason: string): Promise<void> {
    await this.redis.set(this.requestKey(executionId), reason, 'PX', REQUEST_TTL_MS);
    await this.redis.publish(this.channel, JSON.stringify({ executionId, reason }));
  }

  /** Forgets a cancel request once it took effect, so a later round of the execution (retryExecution) runs. */
  async clear(executionId: string): Promise<void> {
    await this.redis.del(this.requestKey(executionId));
  }

  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = null;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }
}
