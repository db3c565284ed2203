import { randomBytes } from 'node:crypto';
import { ownedKey } from '../redis/ownedKey.js';
import type { RedisClient } from '../redis/redisClient.js';
import { errorMessage, type Logger } from '../logger.js';
import { setTimeout as sleep } from 'node:timers/promises';

export interface TenantLockOptions {
  /** How long a holder keeps the lock at most (a crashed holder's lock frees itself). Default 5 s. */
  ttlMs?: number;
  /** How long a caller waits for the lock (behind this process's other callers, then in Redis) before running without it. Default 5 s. */
  waitMs?: number;
}

/**
 * Serialises one kind of operation per tenant across api replicas (a Redis key set with NX and a
 * TTL), e.g. createJob's count-then-insert, so concurrent creates at the quota are decided one at
 * a time. Best effort by design: with Redis unreachable, or after waiting too long, `fn` runs
 * anyway, and callers keep a check that is safe without it. Uses the caller's Redis connection.
 */
export class TenantLock {
  private readonly ttlMs: number;

  private readonly waitMs: number;

  /** Per lock key, the end of this process's queue of callers (see run). */
  private readonly queued = new Map<string, Promise<void>>();

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly name: string,
    private readonly logger: Logger,
    options: TenantLockOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 5000;
    this.waitMs = options.waitMs ?? 5000;
  }

  async run<T>(tenantId: string, fn: () => Promise<T>): Promise<T> {
    const key = `${this.prefix}:lock:${this.name}:${tenantId}`;
    const deadline = Date.now() + this.waitMs;
    // Callers in this process queue here first, so that only the first of a burst polls Redis
    // (60 concurrent creates of one tenant polled it ~3 000 times a second, slowing every tenant).
    const previous = this.queued.get(key);
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    const tail = (previous ?? Promise.resolve()).then(() => mine);
    this.queued.set(key, tail);
    if (previous) await this.within(previous, deadline);
    const token = randomBytes(8).toString('hex');
    try {
      const held = await this.acquire(key, token, deadline);
      try {
        return await fn();
      } finally {
        // Not awaited: the caller's answer need not wait for the release (a lost one frees itself after ttlMs).
        if (held) void ownedKey.release(this.redis, key, token).catch(() => undefined);
      }
    } finally {
      done();
      if (this.queued.get(key) === tail) this.queued.delete(key);
    }
  }

  /** Waits for `p` until `deadline` at most: a stuck caller ahead delays the others by waitMs, as a lock held elsewhere does. */
  private async within(p: Promise<void>, deadline: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([p, new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))))]);
    clearTimeout(timer);
  }

  private async acquire(key: string, token: string, deadline: number): Promise<boolean> {
    try {
      while ((await this.redis.set(key, token, 'PX', this.ttlMs, 'NX')) !== 'OK') {
        if (Date.now() > deadline) {
          this.logger.warn('tenant lock still taken; going on without it', { lock: this.name });
          return false;
        }
        await sleep(10 + Math.random() * 20);
      }
      return true;
    } catch (error) {
      this.logger.warn('tenant lock unavailable: Redis unreachable; going on without it', { lock: this.name, error: errorMessage(error) });
      return false;
    }
  }
}
