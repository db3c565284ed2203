import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { MongoClient } from 'mongodb';
import { startLocalRedis, type LocalServer } from '../../tools/servers/localServers.js';
import type { ExecutionDoc } from '../../src/domain/execution.js';
import type { JobDoc } from '../../src/domain/job.js';
import { DueIndex } from '../../src/scheduler/dueIndex.js';
import { MONGO_URL } from '../support/env.js';
import { jobDoc } from '../support/fixtures.js';
import { startTestKairos, type TestKairos } from '../support/harness.js';
import { waitUntil } from '../support/waitFor.js';

const JOBS = 1000;
/** The default misfire threshold with the default lease: max(2 × 5 s, 10 s). */
const MISFIRE_MS = 10_000;

describe('the due index after Redis loses its data', () => {
  let redisServer: LocalServer;
  let redis: Redis;
  let mongo: MongoClient;
  let k: TestKairos;

  beforeAll(async () => {
    // A private redis-server: this test flushes it, which the shared one must never be.
    redisServer = await startLocalRedis();
    redis = new Redis(redisServer.url);
    mongo = await MongoClient.connect(MONGO_URL);
    k = await startTestKairos('dueindex', {
      roles: ['scheduler', 'worker'],
      env: { REDIS_URL: redisServer.url, LOOK_AHEAD_MS: '5000', WORKER_IO_CONCURRENCY: '64' },
    });
  }, 60_000);
  afterAll(async () => {
    await k?.stop();
    await mongo?.close();
    await redis?.quit();
    await redisServer?.stop();
  });

  it(`rebuilds from MongoDB, and all ${JOBS} active schedules fire within the misfire threshold`, async () => {
    const db = mongo.db(k.dbName);
    const index = new DueIndex(redis, k.prefix);
    // JOBS one-minute schedules whose next occurrences fall 25–55 s from now: past the look-ahead,
    // so at the flush they exist only in MongoDB and in the due index.
    const start = Date.now() + 25_000;
    const jobs: JobDoc[] = Array.from({ length: JOBS }, (_, i) =>
      jobDoc(new Date(start + Math.floor((i * 30_000) / JOBS)), { tenantId: `t${i % 10}` }),
    );
    for (let i = 0; i < jobs.length; i += 250) await db.collection<JobDoc>('jobs').insertMany(jobs.slice(i, i + 250));
    // Written straight to MongoDB, so only a rebuild can index them: the leader's first sweep does it.
    await waitUntil('the first build of the due index', async () => ((await index.size()) === JOBS ? true : undefined), 30_000, 200);

    await redis.flushall();
    expect(await index.size()).toBe(0);
    await waitUntil('the rebuild after the flush', async () => ((await index.size()) === JOBS ? true : undefined), 20_000, 200);
    expect(Date.now()).toBeLessThan(start);

    const executions = db.collection<ExecutionDoc>('executions');
    await waitUntil(
      `${JOBS} executions to finish`,
      async () => ((await executions.countDocuments({ status: 'SUCCEEDED' })) >= JOBS ? true : undefined),
      start - Date.now() + 30_000 + 60_000,
      1000,
    );
    const done = await executions.find({ status: 'SUCCEEDED' }).toArray();
    expect(new Set(done.map((e) => e.jobId.toHexString())).size).toBe(JOBS);
    // Every one on time: its own occurrence (not a catch-up of a missed one), started within the threshold.
    expect(done.filter((e) => e.trigger !== 'SCHEDULE')).toEqual([]);
    const late = done.filter((e) => e.startedAt!.getTime() - e.scheduledFor.getTime() > MISFIRE_MS);
    expect(late.length).toBe(0);
  }, 180_000);
});
