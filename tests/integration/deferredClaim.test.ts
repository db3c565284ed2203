// Covers: src/store/attemptEnds.ts, src/store/attemptStarts.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MongoClient, ObjectId, type Collection, type Db } from 'mongodb';
import { Redis } from 'ioredis';
import { newExecution, type ExecutionDoc } from '../../src/domain/execution.js';
import { RunStore, type EndRequest } from '../../src/store/runStore.js';
import { DeferredClaims } from '../../src/workers/deferredClaims.js';
import { AttemptClaims } from '../../src/queue/attemptClaims.js';
import { MONGO_URL, REDIS_URL } from '../support/env.js';
import { waitForExecution, waitUntil } from '../support/waitFor.js';
import { startTestKairos, tokenFor, uniqueName } from '../support/harness.js';
import { gqlOk } from '../support/graphqlClient.js';
import { ExecutionQueues, QueueShards } from '../../src/queue/executionQueues.js';
import { queueEntry } from '../../src/queue/queueEntry.js';
import { fromGlobalId, toGlobalId } from '../../src/ids/globalId.js';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;

const T0 = new Date('2030-01-01T00:00:00Z');

function execution(status: ExecutionDoc['status'] = 'QUEUED', maxAttempts = 3): ExecutionDoc {
  return {
    ...newExecution(
      {
        tenantId: 'deferred',
        jobId: new ObjectId(),
        occurrenceKey: new ObjectId().toHexString(),
        trigger: 'SCHEDULE',
        workload: 'IO_BOUND',
        scheduledFor: T0,
        maxAttempts,
      },
      T0,
    ),
    status,
  };
}

function succeeded(doc: ExecutionDoc, startedAt: Date): EndRequest {
  return {
    id: doc._id,
    attempt: doc.attempt + 1,
    status: 'SUCCEEDED',
    nextAttemptAt: null,
    final: true,
    error: null,
    reason: null,
    resultJson: '1',
    outcome: 'SUCCEEDED',
    httpStatus: 200,
    start: { from: { status: doc.status, attempt: doc.attempt }, startedAt, workerId: 'w-1' },
  };
}

describe('attempts whose start is written late or not at all (the deferred claim)', () => {
  let mongo: MongoClient;
  let db: Db;
  let executions: Collection<ExecutionDoc>;
  let store: RunStore;
  let redis: Redis;
  const prefix = uniqueName('deferred');

  beforeAll(async () => {
    mongo = await MongoClient.connect(MONGO_URL);
    db = mongo.db(uniqueName('deferred'));
    executions = db.collection('executions');
    store = new RunStore(db, () => new Date(T0.getTime() + 5000));
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await db?.dropDatabase();
    await mongo?.close();
    for (const key of await redis.keys(`${prefix}:*`)) await redis.del(key);
    await redis?.quit();
  });

  it('records the whole attempt with the end, in one compare-and-set on the state the start expected', async () => {
    const doc = execution();
    await executions.insertOne(doc);
    const startedAt = new Date(T0.getTime() + 1000);
    expect(await store.endAttempt(succeeded(doc, startedAt))).toMatchObject({ ended: true });
    const after = await executions.findOne({ _id: doc._id });
    expect(after).toMatchObject({ status: 'SUCCEEDED', attempt: 1, startedAt, finishedAt: new Date(T0.getTime() + 5000), resultJson: '1' });
    expect(after?.attempts).toEqual([
      {
        number: 1,
        startedAt,
        finishedAt: new Date(T0.getTime() + 5000),
        outcome: 'SUCCEEDED',
        error: null,
        httpStatus: 200,
        workerId: 'w-1',
      },
    ]);
    // The same end again (a retry after a lost answer) matches its own write and adds nothing.
    expect(await store.endAttempt(succeeded(doc, startedAt))).toMatchObject({ ended: true });
    expect((await executions.findOne({ _id: doc._id }))?.attempts).toHaveLength(1);
  });

  it('ends from RUNNING when a start write reported as failed had landed after all', async () => {
    const doc = execution('RETRYING');
    await executions.insertOne(doc);
    const startedAt = new Date(T0.getTime() + 1000);
    expect(
      await store.claim({ id: doc._id, from: { status: 'RETRYING', attempt: 0 }, workerId: 'w-1', startedAt, deadlineAfterMs: 60_000 }),
    ).toEqual({ claimed: true });
    expect(await store.endAttempt(succeeded(doc, startedAt))).toMatchObject({ ended: true });
    const after = await executions.findOne({ _id: doc._id });
    expect(after?.status).toBe('SUCCEEDED');
    expect(after?.attempts.map((a) => [a.number, a.outcome, a.startedAt])).toEqual([[1, 'SUCCEEDED', startedAt]]);
  });

  it("never ends another worker's RUNNING attempt of the same number", async () => {
    const doc = execution();
    await executions.insertOne(doc);
    const other = new Date(T0.getTime() + 500);
    expect(
      await store.claim({
        id: doc._id,
        from: { status: 'QUEUED', attempt: 0 },
        workerId: 'w-2',
        startedAt: other,
        deadlineAfterMs: 60_000,
      }),
    ).toEqual({ claimed: true });
    expect(await store.endAttempt(succeeded(doc, new Date(T0.getTime() + 1000)))).toMatchObject({ ended: false, addedToCancelled: false });
    const after = await executions.findOne({ _id: doc._id });
    expect(after?.status).toBe('RUNNING');
    expect(after?.attempts.map((a) => [a.number, a.workerId, a.outcome])).toEqual([[1, 'w-2', null]]);
  });

  it('keeps the attempt on record when the execution was cancelled while it ran unwritten', async () => {
    const doc = execution();
    await executions.insertOne(doc);
    await executions.updateOne({ _id: doc._id }, { $set: { status: 'CANCELLED', reason: 'cancelled by a user' } });
    expect(await store.endAttempt(succeeded(doc, new Date(T0.getTime() + 1000)))).toMatchObject({ ended: false, addedToCancelled: true });
    const after = await executions.findOne({ _id: doc._id });
    expect(after).toMatchObject({ status: 'CANCELLED', reason: 'cancelled by a user', attempt: 1 });
    expect(after?.attempts.map((a) => [a.number, a.outcome, a.workerId])).toEqual([[1, 'SUCCEEDED', 'w-1']]);
  });

  it('records a lost unwritten attempt CRASHED from its claim holder, and a last one as FAILED', async () => {
    const retrying = execution('QUEUED', 2);
    const last = {
      ...execution('RETRYING', 2),
      attempt: 1,
      attempts: [{ number: 1, startedAt: T0, finishedAt: T0, outcome: 'FAILED' as const, error: 'x', httpStatus: 500, workerId: 'w-0' }],
    };
    await executions.insertMany([retrying, last]);
    const holder = { workerId: 'w-dead', startedAt: new Date(T0.getTime() + 2000) };
    const now = new Date(T0.getTime() + 9000);
    const a = await store.recordCrash(retrying, now, holder);
    expect(a).toMatchObject({ status: 'RETRYING', attempt: 1, nextAttemptAt: now, startedAt: holder.startedAt });
    expect(a?.attempts.map((x) => [x.number, x.outcome, x.workerId, x.startedAt])).toEqual([[1, 'CRASHED', 'w-dead', holder.startedAt]]);
    const b = await store.recordCrash(last, now, holder);
    expect(b).toMatchObject({ status: 'FAILED', attempt: 2, finishedAt: now });
    expect(b?.attempts.map((x) => [x.number, x.outcome])).toEqual([
      [1, 'FAILED'],
      [2, 'CRASHED'],
    ]);
    // Changed meanwhile (the compare-and-set on status and attempt): nothing recorded twice.
    expect(await store.recordCrash(retrying, now, holder)).toBeNull();
  });

  it('writes a start after the delay, or at once on writeAll, and tells the attempt when the execution changed', async () => {
    const slow = execution();
    const flushed = execution();
    const cancelled = execution();
    await executions.insertMany([slow, flushed, cancelled]);
    const starts = new DeferredClaims(store, 300);
    const request = (doc: ExecutionDoc) => ({
      id: doc._id,
      from: { status: doc.status, attempt: 0 },
      workerId: 'w-1',
      startedAt: T0,
      deadlineAfterMs: 60_000,
    });
    const a = (await starts.start(request(slow)))!;
    expect((await executions.findOne({ _id: slow._id }))?.status).toBe('QUEUED');
    await waitUntil(
      'the deferred start written',
      async () => ((await executions.findOne({ _id: slow._id }))?.status === 'RUNNING' ? true : undefined),
      5000,
      50,
    );
    expect(await a.settle()).toBe(true);

    await executions.updateOne({ _id: cancelled._id }, { $set: { status: 'CANCELLED' } });
    const b = (await starts.start(request(flushed)))!;
    const c = (await starts.start(request(cancelled)))!;
    let missed = false;
    c.onMissed(() => (missed = true));
    starts.writeAll();
    expect(await b.settle()).toBe(true);
    expect(await c.settle()).toBe(false);
    expect(missed).toBe(true);
    // A listener that comes after the miss is told at once.
    let late = false;
    c.onMissed(() => (late = true));
    expect(late).toBe(true);
    expect(starts.size).toBe(0);
  });

  it('settles an attempt that ended before its start was written as unwritten, and never writes it later', async () => {
    const doc = execution();
    await executions.insertOne(doc);
    const starts = new DeferredClaims(store, 200);
    const claim = (await starts.start({
      id: doc._id,
      from: { status: 'QUEUED', attempt: 0 },
      workerId: 'w-1',
      startedAt: T0,
      deadlineAfterMs: 60_000,
    }))!;
    expect(await claim.settle()).toBe(false);
    starts.writeAll();
    await new Promise((r) => setTimeout(r, 400));
    expect((await executions.findOne({ _id: doc._id }))?.status).toBe('QUEUED');
  });

  it('keeps who started an attempt in its Redis claim, for a takeover to record', async () => {
    const claims = new AttemptClaims(redis, prefix);
    const holder = { workerId: 'w-1', startedAt: new Date(T0.getTime() + 1234), deadlineAt: new Date(T0.getTime() + 9000) };
    expect(await claims.take('e1', 1, holder, 10_000)).toBe(true);
    expect(await claims.take('e1', 1, { ...holder, workerId: 'w-2' }, 10_000)).toBe(false);
    expect(await claims.holder('e1', 1)).toEqual(holder);
    expect(await claims.holder('e1', 2)).toBeNull();
  });

  it('records a claim left behind past its deadline as a CRASHED attempt, then runs the next one, whatever delivery finds it', async () => {
    const k = await startTestKairos('deferred-left', { roles: ['api', 'worker'] });
    const tenant = uniqueName('left');
    const token = tokenFor(tenant, 'member');
    const queues = new ExecutionQueues({ url: REDIS_URL, maxRetriesPerRequest: null }, k.prefix, () => undefined, new QueueShards(1), null);
    try {
      const { createJob } = await gqlOk(k.url, token, CREATE, {
        input: { name: 'x', schedule: { intervalSeconds: 31_536_000 }, target: { handler: 'noop' } },
      });
      const jobId = new ObjectId(fromGlobalId(createJob.job.id, 'Job')!.id);
      const doc = {
        ...newExecution(
          {
            tenantId: tenant,
            jobId,
            occurrenceKey: 'left',
            trigger: 'MANUAL',
            workload: 'IO_BOUND',
            scheduledFor: new Date(),
            maxAttempts: 3,
          },
          new Date(),
        ),
        status: 'QUEUED' as const,
      };
      await mongo.db(k.dbName).collection<ExecutionDoc>('executions').insertOne(doc);
      // A worker that took attempt 1 and vanished before its start or end reached MongoDB, long ago.
      const startedAt = new Date(Date.now() - 120_000);
      await new AttemptClaims(redis, k.prefix).take(
        doc._id.toHexString(),
        1,
        { workerId: 'w-gone', startedAt, deadlineAt: new Date(startedAt.getTime() + 60_000) },
        60_000,
      );
      // An ordinary delivery (not a takeover), as reconcile's re-enqueue of a late execution makes.
      await queues.enqueue([queueEntry(doc, new Date())]);
      const id = toGlobalId('Execution', doc._id);
      const done = await waitForExecution(k.url, token, id, ['SUCCEEDED'], 15_000);
      expect(done.status).toBe('SUCCEEDED');
      const { execution } = await gqlOk(k.url, token, `query($id: ID!) { execution(id: $id) { attempts { number outcome workerId } } }`, {
        id,
      });
      expect(execution.attempts.map((a: { number: number; outcome: string }) => [a.number, a.outcome])).toEqual([
        [1, 'CRASHED'],
        [2, 'SUCCEEDED'],
      ]);
      expect(execution.attempts[0].workerId).toBe('w-gone');
    } finally {
      await queues.close();
      await k.stop();
    }
  }, 30_000);
});
