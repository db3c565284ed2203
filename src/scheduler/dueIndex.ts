import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { RedisClient } from '../redis/redisClient.js';
import type { ObjectId } from 'mongodb';

const DUE_BATCH = readFileSync(new URL('./lua/dueBatch.lua', import.meta.url), 'utf8');
const SETTLE = readFileSync(new URL('./lua/settleDue.lua', import.meta.url), 'utf8');
const TOUCH = readFileSync(new URL('./lua/touchDue.lua', import.meta.url), 'utf8');
const FINISH_REBUILD = readFileSync(new URL('./lua/finishRebuild.lua', import.meta.url), 'utf8');

/** Entries written per round trip while rebuilding. */
const REBUILD_CHUNK = 1000;

/** One entry of the due index as the sweep read it. */
export interface DueEntry {
  jobId: string;
  /** The time the entry says the job is due, in ms. */
  at: number;
  /** The API-write stamp at the read (see settle). */
  stamp: string;
}

/**
 * Which jobs are due, as a Redis sorted set (job id scored by the job's `scheduleCursor`), so the
 * sweep reads only the jobs due now instead of a range query that FerretDB answers by reading
 * every job. MongoDB stays the record; the index only says which jobs to look at:
 * - an entry is never later than its job's cursor: the API writes the new time (ZADD LT: only
 *   earlier) before its MongoDB write, and again after it with a stamp; only the sweep moves an
 *   entry later or removes it, after reading the job back, and only if no API write stamped it
 *   since it read the entry. So no job is missed, and a crash between the two writes leaves an
 *   entry that is early, never late;
 * - an early or stale entry (job paused, deleted, changed) costs the sweep one read of that job,
 *   which then settles the entry where MongoDB says;
 * - a marker key says the index was built: after Redis lost data it is missing, and the leader
 *   rebuilds the index from MongoDB's active jobs (`rebuild`), also periodically, as a backstop
 *   for a write whose Redis half failed.
 * Uses the caller's Redis connection.
 */
export class DueIndex {
  private readonly key: string;
  private readonly stampsKey: string;
  private readonly builtKey: string;
  private readonly buildingKey: string;
  private rebuilding: Promise<number> | null = null;

  /** @param onWriteError An API-side write that failed (logged; the leader's periodic rebuild adds what it missed). */
  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly onWriteError: (error: unknown) => void = () => undefined,
  ) {
    // One hash tag for the three: the scripts touch them together, and the marker must vanish with
    // the index when the master holding them loses its data (one slot on a Redis Cluster).
    this.key = `${prefix}:{due}`;
    this.stampsKey = `${prefix}:{due}:stamps`;
    this.builtKey = `${prefix}:{due}:built`;
    this.buildingKey = `${prefix}:{due}:building`;
  }

  /** Before a MongoDB write that gives the job this cursor: the entry moves earlier if need be. */
  async expect(jobId: ObjectId, at: Date | null): Promise<void> {
    if (at) await this.redis.zadd(this.key, 'LT', at.getTime(), jobId.toHexString()).catch(this.onWriteError);
  }

  /** After a MongoDB write by the API that may have changed the job's cursor (`at`, as written). */
  async touch(jobId: ObjectId, at: Date | null): Promise<void> {
    await this.redis.eval(TOUCH, 2, this.key, this.stampsKey, jobId.toHexString(), at ? String(at.getTime()) : '').catch(this.onWriteError);
  }

  /** Up to `limit` entries due at or before `horizon`, earliest first, and whether the index is built. */
  async due(horizon: Date, limit: number): Promise<{ built: boolean; entries: DueEntry[] }> {
    const raw = (await this.redis.eval(DUE_BATCH, 3, this.key, this.stampsKey, this.builtKey, horizon.getTime(), limit)) as (
      string | number
    )[];
    const entries: DueEntry[] = [];
    for (let i = 1; i < raw.length; i += 3) entries.push({ jobId: String(raw[i]), at: Number(raw[i + 1]), stamp: String(raw[i + 2]) });
    return { built: Number(raw[0]) === 1, entries };
  }

  /** Moves each entry to its job's cursor as read back from MongoDB (null: out of the index), unless an API write stamped it since. */
  async settle(updates: { entry: DueEntry; at: Date | null }[]): Promise<number> {
    if (updates.length === 0) return 0;
    const args = updates.flatMap(({ entry, at }) => [entry.jobId, entry.stamp, at ? String(at.getTime()) : '']);
    return Number(await this.redis.eval(SETTLE, 2, this.key, this.stampsKey, ...args));
  }

  /**
   * Adds every active job from `source` (earlier only, so it never undoes a newer write), then
   * sets the built marker, unless Redis lost its data meanwhile (then it throws, and the next sweep
   * rebuilds again). Concurrent calls in one process share one rebuild. Returns the entries read.
   */
  rebuild(source: () => AsyncIterable<{ jobId: ObjectId; at: Date }>): Promise<number> {
    this.rebuilding ??= this.load(source).finally(() => (this.rebuilding = null));
    return this.rebuilding;
  }

  private async load(source: () => AsyncIterable<{ jobId: ObjectId; at: Date }>): Promise<number> {
    const token = randomBytes(8).toString('hex');
    // Gone if Redis loses its data before the end; an hour covers a rebuild of millions of jobs.
    await this.redis.set(this.buildingKey, token, 'PX', 3_600_000);
    let count = 0;
    let chunk: (string | number)[] = [];
    const flush = async () => {
      if (chunk.length > 0) await this.redis.zadd(this.key, 'LT', ...chunk);
      chunk = [];
    };
    for await (const { jobId, at } of source()) {
      chunk.push(at.getTime(), jobId.toHexString());
      count++;
      if (chunk.length >= 2 * REBUILD_CHUNK) await flush();
    }
    await flush();
    const marked = Number(await this.redis.eval(FINISH_REBUILD, 2, this.buildingKey, this.builtKey, token, new Date().toISOString()));
    if (marked !== 1) throw new Error('the due index was emptied or rebuilt elsewhere while this rebuild ran; the next sweep rebuilds it');
    return count;
  }

  /** Entries in the index (for benchmarks and tests). */
  async size(): Promise<number> {
    return this.redis.zcard(this.key);
  }
}
