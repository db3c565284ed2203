import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { MongoClient, ObjectId } from 'mongodb';
import { startLocalRedis, type LocalServer } from '../../tools/servers/localServers.js';
import { dropRedisPrefix } from '../../tools/servers/dropRedisPrefix.js';
import type { ExecutionDoc } from '../../src/domain/execution.js';
import type { JobDoc } from '../../src/domain/job.js';
import { DueIndex } from '../../src/scheduler/dueIndex.js';
import { MONGO_URL, REDIS_URL } from '../support/env.js';
import { jobDoc } from '../support/fixtures.js';
import { startTestKairos, uniqueName, type TestKairos } from '../support/harness.js';
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

describe('a rebuild of the due index during which Redis loses its data', () => {
  let redis: Redis;
  const prefix = uniqueName('lostrebuild');
  const horizon = new Date('2031-01-01T00:00:00Z');
  const jobs = Array.from({ length: 3 }, (_, i) => ({ jobId: new ObjectId(), at: new Date(horizon.getTime() - 1000 * (i + 1)) }));

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await dropRedisPrefix(redis, prefix);
    await redis.quit();
  });

  /** The jobs, with this index's keys lost after the first (what a Redis restarted without its data does to them). */
  async function* losingData(): AsyncIterable<{ jobId: ObjectId; at: Date }> {
    yield jobs[0];
    await dropRedisPrefix(redis, prefix);
    yield* jobs.slice(1);
  }
  async function* intact(): AsyncIterable<{ jobId: ObjectId; at: Date }> {
    yield* jobs;
  }

  it('is not marked built (the next sweep rebuilds), and the rebuild after it is', async () => {
    const index = new DueIndex(redis, prefix);
    await expect(index.rebuild(losingData)).rejects.toThrow(/emptied or rebuilt elsewhere/);
    expect((await index.due(horizon, 10)).built).toBe(false);

    expect(await index.rebuild(intact)).toBe(3);
    const after = await index.due(horizon, 10);
    expect(after.built).toBe(true);
    expect(after.entries.map((e) => e.jobId).sort()).toEqual(jobs.map((j) => j.jobId.toHexString()).sort());
  });
});
