import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ObjectId } from 'mongodb';
import { Redis } from 'ioredis';
import { Queue } from 'bullmq';
import { ConcurrencyLimiter } from '../../src/quotas/concurrencyLimiter.js';
import type { TenantQuotas } from '../../src/quotas/tenantQuotas.js';
import { ExecutionQueues } from '../../src/queue/executionQueues.js';
import { QueueShards } from '../../src/queue/queueShards.js';
import { queueEntry } from '../../src/queue/queueEntry.js';
import { releaseTenantSlot, waiterOf } from '../../src/workers/wakeWaiter.js';
import { createLogger } from '../../src/logger.js';
import { REDIS_URL } from '../support/env.js';
import { dropTestState, uniqueName } from '../support/harness.js';

/**
 * A freed tenant slot wakes the oldest waiter's delayed queue entry (a tenant at its
 * concurrency quota re-polled the queue ~150 times a second instead). Real Redis and BullMQ queues.
 */
describe('waking a waiter when a tenant slot frees', () => {
  const prefix = uniqueName('wake');
  const tenantId = 'kt_wake';
  let redis: Redis;
  let queues: ExecutionQueues;
  let slots: ConcurrencyLimiter;
  let queue: Queue;
  const quotas = { of: async () => ({ maxJobs: 10, maxConcurrentExecutions: 1, maxExecutionsPerMinute: 10 }) } as unknown as TenantQuotas;
  const logger = createLogger({ test: 'wakeWaiter' }, 'error');

  /** An execution's waiting entry, delayed an hour as a refused delivery's would be. */
  async function delayedEntry(): Promise<string> {
    const execution = {
      _id: new ObjectId(),
      tenantId,
      jobId: new ObjectId(),
      workload: 'IO_BOUND' as const,
      status: 'QUEUED' as const,
      attempt: 0,
      maxAttempts: 1,
      scheduledFor: new Date(),
      payloadJson: null,
    };
    const entry = queueEntry(execution, new Date(Date.now() + 3600_000));
    await queues.enqueue([entry]);
    return entry.id;
  }
  /** A delayed entry whose delivery was refused the tenant's (taken) slot, so it waits in the waiting set. */
  async function refusedWaiter(): Promise<string> {
    const entryId = await delayedEntry();
    expect((await slots.take(tenantId, entryId, 60_000, waiterOf('IO_BOUND', entryId))).slot).toBe('full');
    return entryId;
  }
  const stateOf = async (entryId: string) => queue.getJobState(entryId);

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
    const shards = new QueueShards(1);
    queues = new ExecutionQueues({ url: REDIS_URL }, prefix, () => undefined, shards, null);
    queue = new Queue(shards.queueOf('IO_BOUND', tenantId), { connection: { url: REDIS_URL }, prefix });
    slots = new ConcurrencyLimiter(redis, prefix, () => new Date(), quotas);
  });
  afterAll(async () => {
    await queue.close();
    await queues.close();
    await redis.quit();
    await dropTestState(prefix, prefix);
  });

  it('makes the oldest waiter due now, and only it', async () => {
    expect((await slots.take(tenantId, 'running', 60_000)).slot).toBe('new');
    const first = await refusedWaiter();
    const second = await refusedWaiter();

    await releaseTenantSlot({ tenantSlots: slots, queues, logger }, tenantId, 'running');
    expect(await stateOf(first)).toBe('waiting');
    expect(await stateOf(second)).toBe('delayed');
    expect((await slots.take(tenantId, first, 60_000, waiterOf('IO_BOUND', first))).waiting).toBe(1);
    await slots.release(tenantId, first);
  });

  it('passes the wake on when the oldest waiter is not delayed (running or gone)', async () => {
    expect((await slots.take(tenantId, 'running2', 60_000)).slot).toBe('new');
    const gone = await refusedWaiter();
    const next = await refusedWaiter();
    await queues.remove({ executionId: gone, tenantId, workload: 'IO_BOUND' }, 'QUEUED', 0);

    await releaseTenantSlot({ tenantSlots: slots, queues, logger }, tenantId, 'running2');
    expect(await stateOf(next)).toBe('waiting');
  });

  it('wakes nobody while every slot is taken', async () => {
    expect((await slots.take(tenantId, 'holder', 60_000)).slot).toBe('new');
    const waiter = await refusedWaiter();
    // Another execution's release (one that held no slot) frees nothing.
    await releaseTenantSlot({ tenantSlots: slots, queues, logger }, tenantId, 'held-nothing');
    expect(await stateOf(waiter)).toBe('delayed');
    await releaseTenantSlot({ tenantSlots: slots, queues, logger }, tenantId, 'holder');
    expect(await stateOf(waiter)).toBe('waiting');
  });
});
