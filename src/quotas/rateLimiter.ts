import { readFileSync } from 'node:fs';
import type { RedisClient } from '../redis/redisClient.js';
import type { Clock } from '../clock.js';
import { RateLimitedError } from '../errors/index.js';
import { errorMessage, type Logger } from '../logger.js';

const TAKE = readFileSync(new URL('./lua/takeRateTokens.lua', import.meta.url), 'utf8');
const MINUTE_MS = 60_000;

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
  async take(bucket: string, tenantId: string, perMinute: number, tokens = 1): Promise<void> {
    let waitMs: number;
    try {
      waitMs = Number(
        await this.redis.eval(TAKE, 1, this.key(bucket, tenantId), this.clock().getTime(), perMinute, MINUTE_MS, tokens, 'all'),
      );
    } catch (error) {
      this.logger.warn('rate limit not checked: Redis unreachable', { bucket, error: errorMessage(error) });
      return;
    }
    if (waitMs > 0) {
      const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
      const asked = tokens > 1 ? `${tokens} operations at once exceed` : 'This request exceeds';
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
