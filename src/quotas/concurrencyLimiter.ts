import { readFileSync } from 'node:fs';
import type { RedisClient } from '../redis/redisClient.js';
import type { Clock } from '../clock.js';
import type { TenantQuotas } from './tenantQuotas.js';

const TAKE = readFileSync(new URL('./lua/takeSlot.lua', import.meta.url), 'utf8');

/** `new`: this call took the slot; `held`: the execution held it already (a redelivery); `full`: none free. */
export type SlotResult = 'new' | 'held' | 'full';

/**
 * A tenant's running slots (maxConcurrentExecutions), shared by every worker through Redis. A slot
 * is taken before an attempt starts and given back after it; each carries a TTL (the attempt's
 * timeout plus a margin), so a worker that dies cannot leak one. Uses the caller's Redis connection.
 */
export class ConcurrencyLimiter {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly clock: Clock,
    private readonly quotas: TenantQuotas,
  ) {}

  private key(tenantId: string): string {
    return `${this.prefix}:slots:${tenantId}`;
  }

  /** Takes a slot for the execution if the tenant holds fewer than its maxConcurrentExecutions. */
  async take(tenantId: string, executionId: string, ttlMs: number): Promise<SlotResult> {
    const { maxConcurrentExecutions } = await this.quotas.of(tenantId);
    const taken = Number(await this.redis.eval(TAKE, 1, this.key(tenantId), this.clock().getTime(), executionId, maxConcurrentExecutions, ttlMs));
    return taken === 1 ? 'new' : taken === 2 ? 'held' : 'full';
  }

  async release(tenantId: string, executionId: string): Promise<void> {
    await this.redis.zrem(this.key(tenantId), executionId);
  }

  /** Slots held now (expired ones excluded); for tests and metrics. */
  async held(tenantId: string): Promise<number> {
    return this.redis.zcount(this.key(tenantId), `(${this.clock().getTime()}`, '+inf');
  }
}
