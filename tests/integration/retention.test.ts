import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MongoClient, ObjectId, type Db } from 'mongodb';
import { newExecution, type ExecutionDoc, type ExecutionStatus } from '../../src/domain/execution.js';
import { RetentionStore } from '../../src/store/retentionStore.js';
import { purgeExecutions } from '../../src/scheduler/purgeExecutions.js';
import { MONGO_URL } from '../support/env.js';
import { gqlOk } from '../support/graphqlClient.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { waitUntil } from '../support/waitFor.js';

const DAY = 86_400_000;
const NOW = new Date('2030-06-01T00:00:00Z');

/** An execution of `tenantId` in `status`, finished (when final) `ageDays` before NOW. */
function execution(tenantId: string, status: ExecutionStatus, ageDays: number, label: string): ExecutionDoc {
  const at = new Date(NOW.getTime() - ageDays * DAY);
  const doc = newExecution(
    {
      tenantId,
      jobId: new ObjectId(),
      occurrenceKey: `${label}-${new ObjectId().toHexString()}`,
      trigger: 'SCHEDULE',
      workload: 'IO_BOUND',
      scheduledFor: at,
      maxAttempts: 1,
    },
    at,
  );
  const finished = ['SUCCEEDED', 'FAILED', 'CANCELLED', 'SKIPPED'].includes(status);
  return { ...doc, status, finishedAt: finished ? at : null, reason: label };
}

/** Old finished executions of every kind, old unfinished ones, and recent finished ones. */
function history(tenantId: string): ExecutionDoc[] {
  const finals: ExecutionStatus[] = ['SUCCEEDED', 'FAILED', 'CANCELLED', 'SKIPPED'];
  return [
    ...finals.flatMap((s) => Array.from({ length: 7 }, () => execution(tenantId, s, 45, 'old'))),
    ...(['SCHEDULED', 'QUEUED', 'RUNNING', 'RETRYING'] as ExecutionStatus[]).map((s) => execution(tenantId, s, 400, 'unfinished')),
    ...finals.map((s) => execution(tenantId, s, 29, 'recent')),
  ];
}

async function reasons(db: Db, tenantId: string): Promise<Record<string, number>> {
  const rows = await db.collection<ExecutionDoc>('executions').find({ tenantId }).toArray();
  return rows.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r.reason ?? '']: (acc[r.reason ?? ''] ?? 0) + 1 }), {});
}

describe('execution retention', () => {
  let mongo: MongoClient;
  let db: Db;

  beforeAll(async () => {
    mongo = await MongoClient.connect(MONGO_URL);
    db = mongo.db(uniqueName('retention'));
  });
  afterAll(async () => {
    await db?.dropDatabase();
    await mongo?.close();
  });

  it("purges old finished executions in batches, keeps unfinished and recent ones, and leaves another tenant's alone", async () => {
    await db.collection<ExecutionDoc>('executions').insertMany([...history('short'), ...history('long')]);
    const retention = new RetentionStore(db);
    const tenants = async () => [
      { tenantId: 'short', executionRetentionDays: 30 },
      { tenantId: 'long', executionRetentionDays: 60 },
    ];
    // Batches of 3 with a cap of 20 per run: the first run stops part way, the second finishes.
    const first = await purgeExecutions({ retention, tenants }, NOW, { batchSize: 3, maxDeletes: 20, pauseMs: 0 });
    expect(first.deleted).toBe(20);
    const second = await purgeExecutions({ retention, tenants }, NOW, { batchSize: 3, maxDeletes: 20, pauseMs: 0 });
    expect(second.deleted).toBe(8);
    expect(await reasons(db, 'short')).toEqual({ unfinished: 4, recent: 4 });
    expect(await reasons(db, 'long')).toEqual({ old: 28, unfinished: 4, recent: 4 });
    expect((await purgeExecutions({ retention, tenants }, NOW, { pauseMs: 0 })).deleted).toBe(0);
  });

  it("purges a tenant's alerts and finished bulk operations by the same retention, never a running operation", async () => {
    const at = (ageDays: number) => new Date(NOW.getTime() - ageDays * DAY);
    const alert = (tenantId: string, ageDays: number) => ({ _id: new ObjectId(), tenantId, raisedAt: at(ageDays), reason: `${ageDays}` });
    const operation = (tenantId: string, ageDays: number, finished: boolean) => ({
      _id: new ObjectId(),
      tenantId,
      operationId: `op-${new ObjectId().toHexString()}`,
      state: finished ? 'SUCCEEDED' : 'RUNNING',
      createdAt: at(ageDays),
      finishedAt: finished ? at(ageDays) : null,
    });
    await db.collection('alerts').insertMany([alert('a', 45), alert('a', 45), alert('a', 10), alert('b', 45)]);
    await db
      .collection('bulkOperations')
      .insertMany([operation('a', 45, true), operation('a', 400, false), operation('a', 10, true), operation('b', 45, true)]);
    const tenants = async () => [
      { tenantId: 'a', executionRetentionDays: 30 },
      { tenantId: 'b', executionRetentionDays: 60 },
    ];
    const { deleted } = await purgeExecutions({ retention: new RetentionStore(db), tenants }, NOW, { pauseMs: 0 });
    expect(deleted).toBe(3);
    const left = async (name: string, tenantId: string) =>
      (await db.collection(name).find({ tenantId }).toArray())
        .map((d) => (d.finishedAt === null ? 'running' : `${Math.round((NOW.getTime() - (d.raisedAt ?? d.finishedAt).getTime()) / DAY)}`))
        .sort();
    expect(await left('alerts', 'a')).toEqual(['10']);
    expect(await left('alerts', 'b')).toEqual(['45']);
    expect(await left('bulkOperations', 'a')).toEqual(['10', 'running']);
    expect(await left('bulkOperations', 'b')).toEqual(['45']);
  });

  it('refuses to purge an unfinished status', async () => {
    await expect(new RetentionStore(db).purgeBatch('short', 'RUNNING', NOW, 10)).rejects.toThrow(/only finished/);
  });
});

describe('execution retention in a running deployment', () => {
  let k: TestKairos;
  let mongo: MongoClient;

  beforeAll(async () => {
    k = await startTestKairos('retention-e2e', {
      roles: ['api', 'scheduler'],
      env: { DEFAULT_EXECUTION_RETENTION_DAYS: '10' },
      scheduler: { purgeEveryMs: 1000 },
    });
    mongo = await MongoClient.connect(MONGO_URL);
  });
  afterAll(async () => {
    await mongo?.close();
    await k?.stop();
  });

  it('shows executionRetentionDays in viewer.quota, takes a changed one, and the leader purges by it', async () => {
    const tenant = uniqueName('ret');
    const admin = tokenFor(tenant, 'admin');
    const quota = async () =>
      (await gqlOk(k.url, admin, '{ viewer { quota { executionRetentionDays } } }')).viewer.quota.executionRetentionDays;
    expect(await quota()).toBe(10);
    const db = mongo.db(k.dbName);
    await db.collection('tenants').updateOne({ _id: tenant as never }, { $set: { executionRetentionDays: 3 } });
    expect(await quota()).toBe(3);
    const now = Date.now();
    const at = (days: number) => new Date(now - days * DAY);
    const old = { ...execution(tenant, 'SUCCEEDED', 0, 'old'), finishedAt: at(4) };
    const kept = { ...execution(tenant, 'FAILED', 0, 'kept'), finishedAt: at(2) };
    await db.collection<ExecutionDoc>('executions').insertMany([old, kept]);
    await waitUntil(
      'the purge of the old execution',
      async () => ((await db.collection('executions').countDocuments({ _id: old._id })) === 0 ? true : undefined),
      20_000,
      250,
    );
    expect(await db.collection('executions').countDocuments({ _id: kept._id })).toBe(1);
  });
});
