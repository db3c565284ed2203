import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { REDIS_URL } from '../support/env.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';

const JOBS = '{ jobs(first: 50) { edges { node { id } } } }';
const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;

/**
 * One tenant's burst of HTTP requests takes turns in the api process (issue 11: tenant A's hundred
 * requests at once queued tenant B's behind them on the database pool): past the turns and the
 * queue, RATE_LIMITED with Retry-After; another tenant's request is served meanwhile.
 */
describe("a tenant's requests at once", () => {
  let k: TestKairos;
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    k = await startTestKairos('tenantreqs', {
      roles: ['api'],
      env: { API_TENANT_REQUESTS_IN_FLIGHT: '1', API_TENANT_REQUESTS_QUEUED: '1' },
    });
  });
  afterAll(async () => {
    await k?.stop();
    await redis?.quit();
  });

  async function post(token: string, query: string, variables?: Record<string, unknown>) {
    const response = await fetch(k.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] };
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body };
  }

  it('runs one and queues one of a burst, refuses the rest with RATE_LIMITED, and serves another tenant meanwhile', async () => {
    const tenant = uniqueName('noisy');
    const noisy = tokenFor(tenant, 'member');
    const calm = tokenFor(uniqueName('calm'), 'viewer');
    // Held by the test, the tenant's create lock keeps each create that has a turn waiting (up to its 5 s wait).
    const lock = `${k.prefix}:lock:create-job:${tenant}`;
    await redis.set(lock, 'held by the test', 'PX', 20_000);
    let answered = 0;
    const burst = Array.from({ length: 5 }, (_, i) =>
      post(noisy, CREATE, { input: { name: `j${i}`, schedule: { intervalSeconds: 3600 }, target: { handler: 'noop' } } }).then((a) => {
        answered += a.status === 200 ? 1 : 0;
        return a;
      }),
    );
    const calmAnswer = await post(calm, JOBS);
    expect(calmAnswer.status).toBe(200);
    expect(answered).toBe(0);
    await redis.del(lock);

    const answers = await Promise.all(burst);
    expect(answers.filter((a) => a.status === 200 && !a.body.errors)).toHaveLength(2);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(3);
    for (const answer of refused) {
      expect(answer.retryAfter).toBe('1');
      expect(answer.body.errors).toEqual([
        {
          message: 'Too many requests of this tenant at once; retry after 1 s',
          extensions: { code: 'RATE_LIMITED', retryAfterSeconds: 1 },
        },
      ]);
    }
    // The turns were all given back: the tenant's next request runs.
    expect((await post(noisy, JOBS)).status).toBe(200);
  });
});
