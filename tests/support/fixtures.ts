import { MongoClient, ObjectId, type Db } from 'mongodb';
import { Redis } from 'ioredis';
import type { JobDoc } from '../../src/domain/job.js';
import { newExecution, type ExecutionDoc } from '../../src/domain/execution.js';
import { DEFAULT_RETRY_POLICY } from '../../src/domain/backoff.js';
import type { MaterialiseDeps } from '../../src/scheduler/materialise.js';
import { DueIndex } from '../../src/scheduler/dueIndex.js';
import { SchedulerStore } from '../../src/store/schedulerStore.js';
import { ensureIndexes } from '../../src/store/indexes.js';
import { ExecutionQueues, QueueShards } from '../../src/queue/executionQueues.js';
import { ExecutionEventBus } from '../../src/events/executionEventBus.js';
import { createLogger } from '../../src/logger.js';
import { dropTestState } from './harness.js';
import { MONGO_URL, REDIS_URL } from './env.js';

/** An execution of a made-up job recorded SKIPPED at `at`, as the materialiser inserts one past a budget; in no database unless a test writes it. */
export function skippedExecution(tenantId: string, at: Date, _id = new ObjectId()): ExecutionDoc {
  const fields = { _id, tenantId, jobId: new ObjectId(), occurrenceKey: `k${_id.toHexString()}`, scheduledFor: at, maxAttempts: 1 };
  return { ...newExecution({ ...fields, trigger: 'SCHEDULE', workload: 'IO_BOUND' }, at), status: 'SKIPPED', finishedAt: at };
}

/**
 * A job document as the store holds it: a 1-minute interval whose schedule cursor (next occurrence to
 * materialise) is `cursor`, written an hour before it (so the sweep's grace for API writes is long past), with `overrides`.
 */
export function jobDoc(cursor: Date, overrides: Partial<JobDoc> = {}): JobDoc {
  const written = new Date(cursor.getTime() - 3600_000);
  return {
    _id: new ObjectId(),
    tenantId: 't1',
    name: 'j',
    nameLower: 'j',
    description: null,
    schedule: { kind: 'INTERVAL', intervalSeconds: 60, timezone: 'UTC', jitterSeconds: 0 },
    target: { kind: 'HANDLER', handler: 'noop' },
    payloadJson: null,
    workload: 'IO_BOUND',
    timeoutSeconds: 60,
    retryPolicy: DEFAULT_RETRY_POLICY,
    overlapPolicy: 'ALLOW',
    misfirePolicy: 'RUN_ONCE',
    status: 'ACTIVE',
    scheduleCursor: cursor,
    lastRunAt: null,
    idempotencyKey: new ObjectId().toHexString(),
    createdAt: written,
    updatedAt: written,
    version: 1,
    ...overrides,
  };
}

/** Materialisation wired to the real servers under its own database and Redis prefix; `close()` drops both. */
export async function materialiseFixture(
  name: string,
): Promise<{ db: Db; redis: Redis; deps: MaterialiseDeps; close: () => Promise<void> }> {
  const mongo = await new MongoClient(MONGO_URL).connect();
  const db = mongo.db(name);
  await ensureIndexes(db);
  const redis = new Redis(REDIS_URL);
  const deps: MaterialiseDeps = {
    store: new SchedulerStore(db),
    dueIndex: new DueIndex(redis, name),
    queues: new ExecutionQueues({ url: REDIS_URL, maxRetriesPerRequest: null }, name, () => undefined, new QueueShards(1), null),
    events: new ExecutionEventBus(redis, name),
    logger: createLogger({}, 'silent'),
    random: () => 0,
    // Materialisation tests are about the plan, not the tenants' budgets.
    budget: { charge: async (_tenantId: string, wanted: number) => ({ allowed: wanted, perMinute: Infinity }) },
  };
  return {
    db,
    redis,
    deps,
    close: async () => {
      await deps.queues.close();
      await redis.quit();
      await mongo.close();
      await dropTestState(name, name);
    },
  };
}
