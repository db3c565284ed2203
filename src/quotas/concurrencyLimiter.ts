import { readFileSync } from 'node:fs';
import type { RedisClient } from '../redis/redisClient.js';
import type { Clock } from '../clock.js';
import type { TenantQuotas } from './tenantQuotas.js';

const TAKE = readFileSync(new URL('./lua/takeSlot.lua', import.meta.url), 'utf8');
const RELEASE = readFileSync(new URL('./lua/releaseSlot.lua', import.meta.url), 'utf8');

/** `new`: this call took the slot; `held`: the execution held it already (a redelivery); `full`: none free. */
export type SlotResult = 'new' | 'held' | 'full';

/** What take() found: the slot, and how the tenant's queue of refused executions stands. */
export interface SlotTake {
  slot: SlotResult;
  /** Executions of the tenant refused a slot within the last `waitingTtlMs` and not yet started. */
  waiting: number;
  /** The tenant's maxConcurrentExecutions. */
  limit: number;
}

/**
 * A tenant's running slots (maxConcurrentExecutions), shared by every worker through Redis. A slot
 * is taken before an attempt starts and given back after it; each carries a TTL (the attempt's
 * timeout plus a margin), so a worker that dies cannot leak one. Refused executions are counted
 * (a waiting set beside the slots), so a waiter can space its tries by the length of the queue
 * instead of polling at a fixed rate, and a release hands the oldest waiter to its caller to wake
 * (docs/architecture.md, "Fair share"). Uses the caller's Redis connection.
 */
export class ConcurrencyLimiter {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly clock: Clock,
    private readonly quotas: TenantQuotas,
    /** How long a refused execution counts as waiting unless it tries again; above the longest wait between tries. Default 60 s. */
    private readonly waitingTtlMs = 60_000,
  ) {}

  /** The tenant's slot set; the hash tag keeps it and its waiting set on one Redis Cluster node. */
  private key(tenantId: string): string {
    return `${this.prefix}:slots:{${tenantId}}`;
  }

  /**
   * Takes a slot for the execution if the tenant holds fewer than its maxConcurrentExecutions; if
   * not, `waiter` (opaque here: what wakes the execution, handed back by release()) joins the waiting set.
   */
  async take(tenantId: string, executionId: string, ttlMs: number, waiter = executionId): Promise<SlotTake> {
    const { maxConcurrentExecutions } = await this.quotas.of(tenantId);
    const key = this.key(tenantId);
    const now = this.clock().getTime();
    const [taken, waiting] = (await this.redis.eval(
      TAKE,
      2,
      key,
      `${key}:waiting`,
      now,
      executionId,
      maxConcurrentExecutions,
      ttlMs,
      this.waitingTtlMs,
      waiter,
    )) as [number, number];
    return { slot: taken === 1 ? 'new' : taken === 2 ? 'held' : 'full', waiting: Number(waiting), limit: maxConcurrentExecutions };
  }

  /**
   * Gives back the execution's slot (none: only hands out a waiter); returns the oldest waiter,
   * which leaves the waiting set, when a slot is free, or null.
   */
  async release(tenantId: string, executionId: string | null): Promise<string | null> {
    const { maxConcurrentExecutions } = await this.quotas.of(tenantId);
    const key = this.key(tenantId);
    const waiter = (await this.redis.eval(
      RELEASE,
      2,
      key,
      `${key}:waiting`,
      this.clock().getTime(),
      executionId ?? '',
      maxConcurrentExecutions,
    )) as string | null;
    return waiter ?? null;
  }

  /** Slots held now (expired ones excluded); for tests and metrics. */
  async held(tenantId: string): Promise<number> {
    return this.redis.zcount(this.key(tenantId), `(${this.clock().getTime()}`, '+inf');
  }
}
