// Covers: src/store/collections.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import type { JobDoc } from '../../src/domain/job.js';
import { RunStore } from '../../src/store/runStore.js';
import { MONGO_URL } from '../support/env.js';
import { uniqueName } from '../support/harness.js';
import { jobDoc } from '../support/fixtures.js';
import { waitUntil } from '../support/waitFor.js';

const T0 = new Date('2026-12-06T12:00:00.000Z');
const at = (s: number) => new Date(T0.getTime() + s * 1000);

/** Jobs' lastRunAt is written once per period with each job's latest start, not once per run (every-second jobs were a write each, every second). */
describe.each([true, false])('RunStore writes lastRunAt per period (updatesOneByOne %s)', (oneByOne) => {
  let client: MongoClient;
  let db: Db;
  const name = uniqueName(`jobruns${oneByOne ? 'one' : 'bulk'}`);
  const jobUpdates: unknown[] = [];

  beforeAll(async () => {
    client = await MongoClient.connect(MONGO_URL, { monitorCommands: true });
    client.on('commandStarted', (e: CommandStartedEvent) => {
      if (e.commandName === 'update' && e.command.update === 'jobs') jobUpdates.push(...(e.command.updates as unknown[]));
    });
    db = client.db(name);
  });
  afterAll(async () => {
    await db?.dropDatabase();
    await client?.close();
  });

  const lastRunAt = async (job: JobDoc) => (await db.collection<JobDoc>('jobs').findOne({ _id: job._id }))?.lastRunAt;

  it("writes each job's own latest start, one statement per job, at close", async () => {
    const store = new RunStore(db, () => T0, { updatesOneByOne: oneByOne, jobRunsEveryMs: 60_000 });
    const [every, other, foreign] = [jobDoc(T0, { tenantId: 'a' }), jobDoc(T0, { tenantId: 'a' }), jobDoc(T0, { tenantId: 'b' })];
    await db.collection<JobDoc>('jobs').insertMany([every, other, foreign]);
    for (const s of [1, 3, 2]) store.noteJobRun('a', every._id, at(s));
    store.noteJobRun('a', other._id, at(1.5));
    // A start noted under the wrong tenant never touches another tenant's job.
    store.noteJobRun('a', foreign._id, at(9));
    expect(jobUpdates).toHaveLength(0);
    expect(await lastRunAt(every)).toBeNull();

    await store.close();
    expect(await lastRunAt(every)).toEqual(at(3));
    expect(await lastRunAt(other)).toEqual(at(1.5));
    expect(await lastRunAt(foreign)).toBeNull();
    expect(jobUpdates).toHaveLength(3);
  });

  it('writes on its own once the period has passed, and never moves lastRunAt back', async () => {
    const store = new RunStore(db, () => T0, { updatesOneByOne: oneByOne, jobRunsEveryMs: 100 });
    const job = jobDoc(T0, { tenantId: 'a', lastRunAt: at(10) });
    await db.collection<JobDoc>('jobs').insertOne(job);
    store.noteJobRun('a', job._id, at(5));
    const other = jobDoc(T0, { tenantId: 'a' });
    await db.collection<JobDoc>('jobs').insertOne(other);
    store.noteJobRun('a', other._id, at(7));
    await waitUntil('the periodic write', async () => ((await lastRunAt(other)) ? true : undefined), 5000, 20);
    expect(await lastRunAt(other)).toEqual(at(7));
    expect(await lastRunAt(job)).toEqual(at(10));
    await store.close();
  });
});
