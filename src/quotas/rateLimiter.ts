import { readFileSync } from 'node:fs';
import type { RedisClient } from '../redis/redisClient.js';
import type { Clock } from '../clock.js';
import { RateLimitedError } from '../errors/index.js';
import { errorMessage, type Logger } from '../logger.js';

const TAKE = readFileSync(new URL('./lua/takeRateTokens.lua', import.meta.url), 'utf8');
const MINUTE_MS = 60_000;

export interface TakeOptions {
  /** The burst is what this much time refills (perMinute * burstMs / 1 min, rounded, at least 1). Default a minute. */
  burstMs?: number;
  /** What a token stands for, in the refusal's message. Default `operations`. */
  what?: string;
}

/**
 * Per-tenant request rates, counted in Redis so every api replica sees the same counts. A tenant
 * may spend `perMinute` tokens a minute, in bursts of up to `perMinute` (GCRA: the bucket refills
 * one token every minute / perMinute). Uses the caller's Redis connection.
 */
export class RateLimiter {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  private key(bucket: string, tenantId: string): string {
    return `${this.prefix}:rate:${bucket}:${tenantId}`;
  }

  /**
   * Takes `tokens` from the tenant's `bucket`, or throws RATE_LIMITED with a retry-after hint and
   * takes none. With Redis unreachable it lets the request through: availability over strict
   * limits, since MongoDB can still take the write and reconcile enqueues it later.
   */
  async take(bucket: string, tenantId: string, perMinute: number, tokens = 1, options: TakeOptions = {}): Promise<void> {
    const { burstMs = MINUTE_MS, what = 'operations' } = options;
    let waitMs: number;
    // GCRA's burst is its limit per period: the burst is what burstMs refills, in whole tokens (at
    // least one), and the period is that many refill intervals, so the rate stays perMinute whatever
    // the rounding (5 a minute with a 10 s window is one token every 12 s, not every 10 s).
    const perBurst = Math.max(1, Math.round((perMinute * burstMs) / MINUTE_MS));
    const periodMs = (perBurst * MINUTE_MS) / perMinute;
    try {
      waitMs = Number(
        await this.redis.eval(TAKE, 1, this.key(bucket, tenantId), this.clock().getTime(), perBurst, periodMs, tokens, 'all'),
      );
    } catch (error) {
      this.logger.warn('rate limit not checked: Redis unreachable', { bucket, error: errorMessage(error) });
      return;
    }
    if (waitMs > 0) {
      const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
      const asked = tokens > 1 ? `${tokens} ${what} at once exceed` : 'This request exceeds';
      throw new RateLimitedError(
        `${asked} the tenant's limit of ${perMinute} per minute; retry after ${retryAfterSeconds} s`,
        retryAfterSeconds,
      );
    }
  }

  /**
   * Takes as many of `wanted` tokens as the tenant's `bucket` has and returns how many it took
   * (a shortfall is no error: the caller decides what becomes of the rest). With Redis
   * unreachable it grants them all, as take() does.
   */
  async takeUpTo(bucket: string, tenantId: string, perMinute: number, wanted: number): Promise<number> {
    if (wanted <= 0) return 0;
    try {
      return Number(
        await this.redis.eval(TAKE, 1, this.key(bucket, tenantId), this.clock().getTime(), perMinute, MINUTE_MS, wanted, 'up-to'),
      );
    } catch (error) {
      this.logger.warn('rate limit not checked: Redis unreachable', { bucket, error: errorMessage(error) });
      return wanted;
    }
  }
}
