import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MongoClient, ObjectId, type Db } from 'mongodb';
import { newExecution, type ExecutionDoc, type ExecutionStatus } from '../../src/domain/execution.js';
import { ensureIndexes } from '../../src/store/indexes.js';
import { SchedulerStore } from '../../src/store/schedulerStore.js';
import { MONGO_URL } from '../support/env.js';
import { uniqueName } from '../support/harness.js';

const NOW = new Date('2026-12-03T12:00:00Z');
const ago = (s: number) => new Date(NOW.getTime() - s * 1000);

function execution(
  status: ExecutionStatus,
  times: Partial<Pick<ExecutionDoc, 'scheduledFor' | 'nextAttemptAt' | 'deadlineAt'>>,
): ExecutionDoc {
  const doc = newExecution(
    {
      tenantId: 'scan',
      jobId: new ObjectId(),
      occurrenceKey: new ObjectId().toHexString(),
      trigger: 'SCHEDULE',
      workload: 'IO_BOUND',
      scheduledFor: times.scheduledFor ?? NOW,
      maxAttempts: 3,
    },
    NOW,
  );
  return { ...doc, status, ...times };
}

/** Reconcile's scans give the same executions whether the time bounds go to the server (MongoDB) or are applied in the store (FerretDB). */
describe.each([false, true])("the scheduler store's scans for stranded executions (equalityFiltersOnly %s)", (equalityFiltersOnly) => {
  let client: MongoClient;
  let db: Db;
  let store: SchedulerStore;
  const name = uniqueName(`scans${equalityFiltersOnly ? 'eq' : 'range'}`);
  const docs = {
    queuedLate: execution('QUEUED', { scheduledFor: ago(120) }),
    queuedOnTime: execution('QUEUED', { scheduledFor: ago(10) }),
    scheduledLate: execution('SCHEDULED', { scheduledFor: ago(90) }),
    retryingLate: execution('RETRYING', { scheduledFor: ago(300), nextAttemptAt: ago(70) }),
    // Late by its first time, but its next attempt is not due yet.
    retryingOnTime: execution('RETRYING', { scheduledFor: ago(300), nextAttemptAt: ago(5) }),
    runningPastDeadline: execution('RUNNING', { scheduledFor: ago(300), deadlineAt: ago(61) }),
    runningWithinDeadline: execution('RUNNING', { scheduledFor: ago(300), deadlineAt: ago(-30) }),
    succeeded: execution('SUCCEEDED', { scheduledFor: ago(500) }),
  };
  const ids = (found: ExecutionDoc[]) => found.map((e) => Object.entries(docs).find(([, d]) => d._id.equals(e._id))![0]).sort();

  beforeAll(async () => {
    client = await MongoClient.connect(MONGO_URL);
    db = client.db(name);
    await ensureIndexes(db);
    await db.collection<ExecutionDoc>('executions').insertMany(Object.values(docs));
    store = new SchedulerStore(db, { equalityFiltersOnly });
  });
  afterAll(async () => {
    await db?.dropDatabase();
    await client?.close();
  });

  it('finds the waiting ones past their time and the running ones past their deadline', async () => {
    expect(ids(await store.findStranded(ago(60), 100))).toEqual(['queuedLate', 'retryingLate', 'runningPastDeadline', 'scheduledLate']);
    expect(ids(await store.findWaiting(ago(60), 100))).toEqual(['queuedLate', 'retryingLate', 'scheduledLate']);
  });

  it('inserts new occurrences and hands back the already inserted ones still waiting to start', async () => {
    const fresh = execution('QUEUED', { scheduledFor: NOW });
    // A repeated pass: the same occurrences again, as new documents (new ids, same occurrence keys).
    const again = (d: ExecutionDoc): ExecutionDoc => ({ ...d, _id: new ObjectId(), status: 'QUEUED' });
    const { inserted, leftBehind } = await store.insertExecutions([
      again(docs.queuedOnTime),
      fresh,
      again(docs.succeeded),
      again(docs.scheduledLate),
    ]);
    expect(inserted.map((e) => e._id)).toEqual([fresh._id]);
    expect(ids(leftBehind)).toEqual(['queuedOnTime', 'scheduledLate']);
    await db.collection<ExecutionDoc>('executions').deleteOne({ _id: fresh._id });
  });

  it('returns at most `limit` of them', async () => {
    const found = await store.findStranded(ago(60), 2);
    expect(found).toHaveLength(2);
    expect(ids(found).every((n) => ['queuedLate', 'retryingLate', 'runningPastDeadline', 'scheduledLate'].includes(n))).toBe(true);
  });
});
