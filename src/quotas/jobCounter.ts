import { readFileSync } from 'node:fs';
import type { RedisClient } from '../redis/redisClient.js';

const RESERVE = readFileSync(new URL('./lua/reserveJob.lua', import.meta.url), 'utf8');
const RELEASE = readFileSync(new URL('./lua/releaseJob.lua', import.meta.url), 'utf8');

/** Counts a tenant's jobs from MongoDB (the record); the counter calls it only to seed or heal. */
export type CountJobs = () => Promise<number>;

export interface JobCounterOptions {
  /**
   * A counter is recounted from MongoDB this long after it was seeded, so any drift (a crash
   * between a job's write and the counter's) heals by then. Default 24 h.
   */
  ttlMs?: number;
  /** A tenant refused at its quota is recounted at most this often (a counter that drifted up heals at once). Default 60 s. */
  recheckMs?: number;
}

/**
 * Each tenant's job count as a Redis counter, so createJob's quota check costs the same at 10 and
 * at 100 000 jobs: `countDocuments` on FerretDB reads every job of the tenant. MongoDB stays the
 * record: a missing counter is seeded from a count (after Redis lost it, or once a day), and a
 * tenant refused at the quota is recounted (at most once a minute) before the refusal stands.
 * The counter goes up before a job is inserted and down after one is deleted, so the drifts a
 * crash can cause over-count (never lets a tenant past its quota) until the next recount.
 * A counter in the tenant's MongoDB document would not do: FerretDB 1.24 applies `$inc` as a
 * read-modify-write, and concurrent increments are lost. Uses the caller's Redis connection.
 */
export class JobCounter {
  private readonly ttlMs: number;
  private readonly recheckMs: number;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    options: JobCounterOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 86_400_000;
    this.recheckMs = options.recheckMs ?? 60_000;
  }

  private key(tenantId: string): string {
    return `${this.prefix}:jobcount:${tenantId}`;
  }

  /**
   * Takes one job slot if the tenant has fewer than `max` jobs: true when taken (the caller
   * inserts the job, or calls `release` if it does not), false when the tenant is at its quota.
   */
  async reserve(tenantId: string, max: number, count: CountJobs): Promise<boolean> {
    for (let round = 0; round < 3; round++) {
      const result = Number(await this.redis.eval(RESERVE, 1, this.key(tenantId), max));
      if (result === 1) return true;
      if (result === -1) {
        await this.seed(tenantId, count, false);
        continue;
      }
      // At the quota: recount (a counter that drifted up must not refuse for a day), once a minute at most.
      const recheck = await this.redis.set(`${this.key(tenantId)}:checked`, '1', 'PX', this.recheckMs, 'NX');
      if (recheck !== 'OK') return false;
      const actual = await this.seed(tenantId, count, true);
      if (actual >= max) return false;
    }
    return false;
  }

  /** Gives back one slot: after a job was deleted, or when a reservation was not used. */
  async release(tenantId: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key(tenantId));
  }

  /** The tenant's job count (seeded from MongoDB when missing). */
  async current(tenantId: string, count: CountJobs): Promise<number> {
    const value = await this.redis.get(this.key(tenantId));
    return value === null ? this.seed(tenantId, count, false) : Number(value);
  }

  /** Sets the counter from MongoDB's count: only when missing unless `replace`. Returns the counter after. */
  private async seed(tenantId: string, count: CountJobs, replace: boolean): Promise<number> {
    const actual = await count();
    const key = this.key(tenantId);
    if (replace) {
      await this.redis.set(key, actual, 'PX', this.ttlMs);
      return actual;
    }
    // NX: a concurrent seeder or a reservation made since wins; its value is as good as ours.
    const set = await this.redis.set(key, actual, 'PX', this.ttlMs, 'NX');
    if (set === 'OK') return actual;
    return Number((await this.redis.get(key)) ?? actual);
  }
}
