import { WORKLOADS, type Workload } from '../domain/job.js';
import type { RedisClient } from '../redis/redisClient.js';
import type { QueueEntry } from './queueEntry.js';
import type { QueueShards } from './queueShards.js';

/** A member added this recently may belong to an add still on its way: `trim` leaves it. */
const SETTLE_MS = 10_000;

/** How much one `trim` looks at: members a page, and members in all. */
export interface TrimLimits {
  trimPage: number;
  trimMost: number;
}

export const TRIM_LIMITS: TrimLimits = { trimPage: 1000, trimMost: 10_000 };

/**
 * Which queue entries each tenant has waiting, for its `maxWaitingExecutions` quota: a sorted set per
 * tenant and queue shard, `waiting:{<queue>}:<tenant>` (in the shard's hash slot), one member per
 * waiting entry (its entry id), scored by when it was added. Counting a tenant's entries in the queue
 * itself would mean reading every tenant's of its shard; counting its executions in MongoDB, reading
 * all of them on FerretDB. ExecutionQueues adds the members of the entries it adds (takeovers, of a
 * RUNNING execution, are not waiting) beside the add, and removes those it removes; a worker removes
 * one when it claims the attempt and when the delivery leaves the queue. A removal that was lost (a
 * worker died) leaves a member whose entry is gone, which `trim` drops: the count drifts high, and
 * heals. An add that failed while its entry's add landed undercounts that entry until it leaves.
 * Uses the caller's Redis connection (the composition root's command connection, which it owns and
 * closes), so it fails as the other per-request checks on that connection do while Redis is away.
 */
export class WaitingIndex {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly shards: QueueShards,
    private readonly limits: TrimLimits = TRIM_LIMITS,
  ) {}

  private key(workload: Workload, tenantId: string): string {
    return `${this.prefix}:waiting:${this.shards.queueOf(workload, tenantId)}:${tenantId}`;
  }

  /**
   * False while the connection is away: the index is best effort and never makes its caller wait for
   * a reconnection (with the offline queue on, a command would wait through several of them, seconds
   * added to a trigger that MongoDB alone can take, and the enqueue beside it fails at once anyway).
   */
  private get connected(): boolean {
    return this.redis.status === 'ready';
  }

  /** BullMQ's key of an entry (its hash), in the same slot as the tenant's set of that queue. */
  private entryKey(workload: Workload, tenantId: string, entryId: string): string {
    return `${this.prefix}:${this.shards.queueOf(workload, tenantId)}:${entryId}`;
  }

  /** Adds the waiting entries among `entries`, scored `now` (wall-clock ms, as BullMQ's delays), one ZADD per tenant and queue. */
  async add(entries: QueueEntry[], now: number): Promise<void> {
    if (!this.connected) return;
    const byKey = new Map<string, string[]>();
    for (const e of entries) {
      if (e.message.takeover) continue;
      const key = this.key(e.workload, e.message.tenantId);
      byKey.set(key, [...(byKey.get(key) ?? []), String(now), e.id]);
    }
    await Promise.all([...byKey].map(([key, args]) => this.redis.zadd(key, ...args)));
  }

  /** The entry left the queue, or its execution no longer waits (its attempt started). */
  async remove(workload: Workload, tenantId: string, entryId: string): Promise<void> {
    // A removal skipped while Redis is away is one `trim` makes later.
    if (!this.connected) return;
    await this.redis.zrem(this.key(workload, tenantId), entryId);
  }

  /** The tenant's waiting entries, every workload. */
  async count(tenantId: string): Promise<number> {
    if (!this.connected) throw new Error('Redis is not connected');
    const counts = await Promise.all(WORKLOADS.map((w) => this.redis.zcard(this.key(w, tenantId))));
    return counts.reduce((sum, n) => sum + n, 0);
  }

  /**
   * Drops the tenant's members whose entry is no longer in the queue (added over 10 s before `now`,
   * wall-clock ms as the scores, so an add on its way is not judged), at most once per `everyMs`
   * across processes (a marker key); returns the count after. It runs before a refusal, on the
   * trigger's request, and the set is not bounded by the cap (scheduled occurrences and automatic
   * retries are never refused), so its work is: the oldest members first, a page of `trimPage`
   * (ZRANGEBYSCORE … LIMIT, then one EXISTS each in one pipeline) at a time, until the count is
   * below `cap` or `trimMost` members were looked at (defaults 1 000 and 10 000: at most ten pages a
   * trim, once per `everyMs` per tenant). A lost removal younger than the `trimMost` oldest members
   * may then stay counted until those leave; a tenant with that many waiting is far past the default cap anyway.
   */
  async trim(tenantId: string, cap: number, everyMs: number, now = Date.now()): Promise<number> {
    const first = await this.redis.set(`${this.prefix}:waiting-trimmed:${tenantId}`, '1', 'PX', everyMs, 'NX');
    if (first !== 'OK') return this.count(tenantId);
    let count = await this.count(tenantId);
    let looked = 0;
    for (const workload of WORKLOADS) {
      const key = this.key(workload, tenantId);
      // Members kept so far are skipped by rank; dropped ones leave the ranks.
      for (let kept = 0; count >= cap && looked < this.limits.trimMost;) {
        const page = Math.min(this.limits.trimPage, this.limits.trimMost - looked);
        const members = await this.redis.zrangebyscore(key, '-inf', now - SETTLE_MS, 'LIMIT', kept, page);
        if (members.length === 0) break;
        looked += members.length;
        // Every entry of the tenant's queue shares its hash slot: one pipeline, also on a cluster.
        const pipeline = this.redis.pipeline();
        for (const id of members) pipeline.exists(this.entryKey(workload, tenantId, id));
        const found = (await pipeline.exec()) ?? [];
        const gone = members.filter((_, i) => found[i]?.[1] === 0);
        if (gone.length > 0) count -= await this.redis.zrem(key, ...gone);
        kept += members.length - gone.length;
        if (members.length < page) break;
      }
    }
    return this.count(tenantId);
  }
}
