// Covers: src/jobs/deleteJob.ts, src/resolvers/jobConnection.resolver.ts, src/resolvers/viewer.resolver.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { JobCounter } from '../../src/quotas/jobCounter.js';
import { REDIS_URL } from '../support/env.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { setTimeout as sleep } from 'node:timers/promises';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const DELETE = `mutation($id: ID!) { deleteJob(id: $id) { deletedJobId } }`;
const COUNTS = `{ viewer { quota { jobCount } } jobs(first: 1) { totalCount } }`;
const job = (name: string) => ({ input: { name, schedule: { intervalSeconds: 3600 }, target: { handler: 'noop' }, paused: true } });

/** The job counter (Redis) next to the record (MongoDB's count): they must agree. */
async function counts(url: string, token: string): Promise<{ counter: number; actual: number }> {
  const data = await gqlOk(url, token, COUNTS);
  return { counter: data.viewer.quota.jobCount, actual: data.jobs.totalCount };
}

describe('job counter', () => {
  let k: TestKairos;
  let redis: Redis;
  const MAX = 12;

  beforeAll(async () => {
    k = await startTestKairos('jobcounter', {
      roles: ['api'],
      env: { DEFAULT_MAX_JOBS: String(MAX), DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '100000' },
    });
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await redis?.quit();
    await k?.stop();
  });

  it('stays exact under concurrent creates and deletes, and fills the quota exactly', async () => {
    const tenant = uniqueName('jc');
    const member = tokenFor(tenant, 'member');
    const first = await Promise.all(Array.from({ length: 8 }, (_, i) => gqlOk(k.url, member, CREATE, job(`a${i}`))));
    const ids: string[] = first.map((r) => r.createJob.job.id);
    // 10 creates racing 8 deletes (each delete twice: the second finds nothing and must not count).
    const racing = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => gql(k.url, member, CREATE, job(`b${i}`))),
      ...ids.flatMap((id) => [gql(k.url, member, DELETE, { id }), gql(k.url, member, DELETE, { id })]),
    ]);
    const refused = racing.filter((r) => r.errors?.length && r.errors[0].extensions?.code !== 'NOT_FOUND');
    expect(refused.map((r) => r.errors?.[0].extensions?.code).filter((c) => c !== 'QUOTA_EXCEEDED')).toEqual([]);
    const after = await counts(k.url, member);
    expect(after.counter).toBe(after.actual);
    expect(after.actual).toBeLessThanOrEqual(MAX);
    // Now fill it concurrently: exactly MAX, not one more, not one fewer.
    const fill = await Promise.all(Array.from({ length: MAX }, (_, i) => gql(k.url, member, CREATE, job(`c${i}`))));
    expect(fill.filter((r) => r.data?.createJob).length).toBe(MAX - after.actual);
    expect(await counts(k.url, member)).toEqual({ counter: MAX, actual: MAX });
  });

  it('reseeds a counter Redis lost, and heals one that drifted up before refusing', async () => {
    const tenant = uniqueName('jh');
    const member = tokenFor(tenant, 'member');
    for (let i = 0; i < 3; i++) await gqlOk(k.url, member, CREATE, job(`h${i}`));
    const key = `${k.prefix}:jobcount:${tenant}`;
    await redis.del(key);
    expect(await counts(k.url, member)).toEqual({ counter: 3, actual: 3 });
    // A crash between a write and the counter's change leaves it too high: a create at the "quota" recounts.
    await redis.set(key, String(MAX));
    await gqlOk(k.url, member, CREATE, job('after drift'));
    expect(await counts(k.url, member)).toEqual({ counter: 4, actual: 4 });
  });
});

describe('JobCounter (real Redis)', () => {
  let redis: Redis;
  const prefix = uniqueName('jobcounter-unit');

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('recounts a counter once it expires, so an under-count heals too', async () => {
    let actual = 5;
    const counter = new JobCounter(redis, prefix, { ttlMs: 200 });
    expect(await counter.current('t', async () => actual)).toBe(5);
    await redis.set(`${prefix}:jobcount:t`, '1', 'PX', 200);
    actual = 6;
    await sleep(300);
    expect(await counter.current('t', async () => actual)).toBe(6);
  });

  it('refuses at the quota without counting again within the recheck period', async () => {
    let counted = 0;
    const counter = new JobCounter(redis, prefix, { recheckMs: 60_000 });
    const count = async () => (counted++, 3);
    expect(await counter.reserve('q', 3, count)).toBe(false);
    expect(await counter.reserve('q', 3, count)).toBe(false);
    expect(await counter.reserve('q', 3, count)).toBe(false);
    // One seed and one recheck, not one count per refused create.
    expect(counted).toBe(2);
    await counter.release('q');
    expect(await counter.reserve('q', 3, count)).toBe(true);
    expect(counted).toBe(2);
  });
});
