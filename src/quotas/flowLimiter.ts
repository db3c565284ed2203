import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Clock } from '../clock.js';
import type { FlowControl } from '../domain/flowControl.js';
import type { RedisClient } from '../redis/redisClient.js';

const TAKE = readFileSync(new URL('./lua/takeFlow.lua', import.meta.url), 'utf8');
const RELEASE = readFileSync(new URL('./lua/releaseFlow.lua', import.meta.url), 'utf8');

/** The limits an attempt is admitted against, and whose key. */
export type FlowLimits = Pick<FlowControl, 'key' | 'maxConcurrent' | 'maxPerMinute'>;

/** What take() found. */
export type FlowTake =
  /** `new`: this call took a running place and a start; `held`: the execution held its place already (a redelivery). */
  | { kind: 'new' | 'held' }
  /** Every running place is taken: `waiting` executions wait for the key (this one included); a release wakes the oldest. */
  | { kind: 'concurrency'; waiting: number }
  /** The minute's starts are used up: the next one this execution may take is at `at`. */
  | { kind: 'rate'; waiting: number; at: Date };

/** One attempt's hold on a key: what release() gives back. */
export interface FlowHold {
  tenantId: string;
  limits: FlowLimits;
  executionId: string;
  /** The start's id, given back if the attempt never began. */
  startId: string;
}

/**
 * Flow control per key (docs/architecture.md, "Flow control"): the running attempts and the starts of
 * the last minute of every execution whose job names the key, shared by all worker processes through
 * Redis. Each key is scoped to its tenant; its sets live under one hash tag (a hash of the key, which
 * may hold any character), so the scripts run on a Redis Cluster too. Uses the caller's Redis connection.
 */
export class FlowLimiter {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly clock: Clock,
    /** How long a refused execution counts as waiting, and its reason is shown; above the longest wait between tries. Default 60 s. */
    private readonly waitingTtlMs = 60_000,
  ) {}

  private base(tenantId: string, key: string): string {
    const hash = createHash('sha256').update(key).digest('base64url').slice(0, 16);
    return `${this.prefix}:flow:{${tenantId}/${hash}}`;
  }

  /**
   * Takes a running place and a start for attempt `attempt` of the execution, or notes it as waiting
   * (`waiter`: what wakes its queue entry, handed back by release()). `ttlMs` bounds the place: a
   * worker that dies cannot hold it longer.
   */
  async take(hold: FlowHold, ttlMs: number, waiter: string): Promise<FlowTake> {
    const base = this.base(hold.tenantId, hold.limits.key);
    const [result, waiting, at] = (await this.redis.eval(
      TAKE,
      4,
      `${base}:running`,
      `${base}:starts`,
      `${base}:waiting`,
      `${base}:why:${hold.executionId}`,
      this.clock().getTime(),
      hold.executionId,
      hold.startId,
      hold.limits.maxConcurrent ?? 0,
      hold.limits.maxPerMinute ?? 0,
      ttlMs,
      this.waitingTtlMs,
      waiter,
    )) as [number, number, number];
    if (result === 1) return { kind: 'new' };
    if (result === 2) return { kind: 'held' };
    if (result === 0) return { kind: 'concurrency', waiting: Number(waiting) };
    return { kind: 'rate', waiting: Number(waiting), at: new Date(Number(at)) };
  }

  /**
   * Gives back the execution's running place (`hold` null: only hands out a waiter), and its start
   * too when the attempt never `began`; returns the oldest waiter to wake when `wake` and a place is free.
   */
  async release(
    tenantId: string,
    limits: FlowLimits,
    hold: Pick<FlowHold, 'executionId' | 'startId'> | null,
    options: { began: boolean; wake: boolean },
  ): Promise<string | null> {
    const base = this.base(tenantId, limits.key);
    const waiter = (await this.redis.eval(
      RELEASE,
      3,
      `${base}:running`,
      `${base}:starts`,
      `${base}:waiting`,
      this.clock().getTime(),
      hold?.executionId ?? '',
      hold && !options.began ? hold.startId : '',
      limits.maxConcurrent ?? 0,
      options.wake ? '1' : '0',
    )) as string | null;
    return waiter ?? null;
  }

  /** Why the execution waits for the key, as take() noted it (flowWaitReason words it), or null. */
  async waitNote(tenantId: string, key: string, executionId: string): Promise<string | null> {
    return this.redis.get(`${this.base(tenantId, key)}:why:${executionId}`);
  }

  /** Running places held now (expired ones excluded); for tests and the chaos audit. */
  async running(tenantId: string, key: string): Promise<number> {
    return this.redis.zcount(`${this.base(tenantId, key)}:running`, `(${this.clock().getTime()}`, '+inf');
  }
}
