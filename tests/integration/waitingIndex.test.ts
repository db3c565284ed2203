import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Cluster } from 'ioredis';
import { Redis } from 'ioredis';
import { ObjectId } from 'mongodb';
import type { Workload } from '../../src/domain/job.js';
import { ExecutionQueues, QueueShards } from '../../src/queue/executionQueues.js';
import { WaitingIndex } from '../../src/queue/waitingIndex.js';
import type { QueueEntry } from '../../src/queue/queueEntry.js';
import { dropRedisPrefix } from '../../tools/servers/dropRedisPrefix.js';
import { REDIS_URL } from '../support/env.js';
import { uniqueName } from '../support/harness.js';
import { clusterClient, dropClusterKeys } from '../support/redisCluster.js';
import { waitUntil } from '../support/waitFor.js';

/** A waiting entry (or a takeover) of `tenantId`, due in an hour so nothing runs it. */
function entry(tenantId: string, workload: Workload = 'IO_BOUND', takeover = false): QueueEntry {
  const executionId = new ObjectId().toHexString();
  return {
    id: takeover ? `${executionId}-t1` : executionId,
    workload,
    dueAt: new Date(Date.now() + 3_600_000),
    message: { executionId, tenantId, ...(takeover ? { takeover: true } : {}) },
  };
}

/**
 * The index behind maxWaitingExecutions (queue/waitingIndex.ts), on one Redis and on the test Redis
 * Cluster (where the queue shards, and each tenant's sets with them, spread over the masters).
 */
describe.each([
  ['one Redis', false],
  ['a Redis Cluster', true],
])('the waiting index on %s', (_label, onCluster) => {
  const prefix = uniqueName('widx');
  const shards = new QueueShards(onCluster ? 6 : 1);
  let redis: Redis | Cluster;
  let index: WaitingIndex;
  let queues: ExecutionQueues;

  beforeAll(async () => {
    redis = onCluster ? clusterClient() : new Redis(REDIS_URL);
    // Connected first, as the composition root's connection is: the index skips its work while it is not.
    await redis.ping();
    // As the composition root does: the index on the command connection; the queues share the
    // cluster client, or open connections of their own from options.
    index = new WaitingIndex(redis, prefix, shards);
    queues = new ExecutionQueues(onCluster ? redis : { url: REDIS_URL }, prefix, () => undefined, shards, index);
  });
  afterAll(async () => {
    await queues?.close();
    if (onCluster) await dropClusterKeys(prefix);
    else await dropRedisPrefix(redis as Redis, prefix);
    await redis?.quit();
  });

  /** Deletes an entry behind the index's back, as a worker that died before its removal leaves it. */
  const lose = (e: QueueEntry) => redis.del(`${prefix}:${shards.queueOf(e.workload, e.message.tenantId)}:${e.id}`);

  it("counts a tenant's waiting entries of every workload, and not its takeovers or another tenant's", async () => {
    const tenant = uniqueName('a');
    await queues.enqueue([
      entry(tenant),
      entry(tenant),
      entry(tenant, 'CPU_BOUND'),
      entry(tenant, 'IO_BOUND', true),
      entry(uniqueName('b')),
    ]);
    expect(await index.count(tenant)).toBe(3);
  });

  it('forgets an entry the queue removes (a cancel) or a worker says has left', async () => {
    const tenant = uniqueName('c');
    const [cancelled, started, kept] = [entry(tenant), entry(tenant), entry(tenant)];
    await queues.enqueue([cancelled, started, kept]);
    await queues.remove({ executionId: cancelled.message.executionId, tenantId: tenant, workload: 'IO_BOUND' }, 'QUEUED', 0);
    expect(await index.count(tenant)).toBe(2);
    queues.leftWaiting('IO_BOUND', tenant, started.id);
    await waitUntil('the removal', async () => ((await index.count(tenant)) === 1 ? true : undefined), 2000, 20);
  });

  it('drops a member whose removal was lost once it is settled, at most once per period, and never one just added', async () => {
    const tenant = uniqueName('d');
    const [lost, kept, cpuLost] = [entry(tenant), entry(tenant), entry(tenant, 'CPU_BOUND')];
    await queues.enqueue([lost, kept, cpuLost]);
    await Promise.all([lose(lost), lose(cpuLost)]);
    expect(await index.count(tenant)).toBe(3);
    // Just added: its add may still be on its way, so it is not judged.
    expect(await index.trim(tenant, 1, 3000)).toBe(3);
    // Throttled: the first trim set the tenant's marker for the period.
    const settled = () => Date.now() + 11_000;
    expect(await index.trim(tenant, 1, 3000, settled())).toBe(3);
    // Once the period is over, the lost members of both workloads go.
    await waitUntil('the next trim', async () => ((await index.trim(tenant, 1, 3000, settled())) === 1 ? true : undefined), 10_000, 200);
    const other = uniqueName('e');
    const [gone, stays, cpuGone] = [entry(other), entry(other), entry(other, 'CPU_BOUND')];
    await queues.enqueue([gone, stays, cpuGone]);
    await Promise.all([lose(gone), lose(cpuGone)]);
    expect(await index.trim(other, 1, 60_000, settled())).toBe(1);
  });

  it('looks at a bounded number of members a trim, oldest first, and stops once the count is below the cap', async () => {
    // Members whose entries were never in the queue: lost ones, as far as a trim can tell.
    const members = (tenantId: string, n: number) => Array.from({ length: n }, () => entry(tenantId));
    const settled = Date.now() + 11_000;
    const small = new WaitingIndex(redis, prefix, shards, { trimPage: 2, trimMost: 4 });
    // At most trimMost looked at, even far over the cap.
    const many = uniqueName('f');
    await small.add(members(many, 7), Date.now());
    expect(await small.trim(many, 1, 60_000, settled)).toBe(3);
    // A page at a time, until the count is below the cap.
    const few = uniqueName('g');
    await small.add(members(few, 6), Date.now());
    expect(await small.trim(few, 5, 60_000, settled)).toBe(4);
    // Members still in the queue are kept and passed over: the next page starts after them.
    const mixed = uniqueName('h');
    const real = members(mixed, 2);
    await queues.enqueue(real);
    const paged = new WaitingIndex(redis, prefix, shards, { trimPage: 2, trimMost: 100 });
    await paged.add(members(mixed, 3), Date.now() + 1);
    expect(await paged.trim(mixed, 1, 60_000, settled)).toBe(2);
  });
});
