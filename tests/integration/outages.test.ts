// Covers: src/api/formatError.ts, src/roles/connections.ts, src/scheduler/requeueWaiting.ts, src/workers/retryWhileMongoDown.ts
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { EXECUTION_FIELDS, waitForExecution, waitUntil } from '../support/waitFor.js';
import { EventCollector, wsClient } from '../support/subscriptions.js';
import { startLocalMongo, startLocalRedis, type LocalServer } from '../../tools/servers/localServers.js';
import { setTimeout as sleep } from 'node:timers/promises';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const TRIGGER = `mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }`;
const EXECUTIONS = `query($jobId: ID) { executions(first: 100, filter: { jobId: $jobId }) { edges { node { ${EXECUTION_FIELDS} } } } }`;
const SUBSCRIBE = `subscription($jobId: ID) { executionUpdated(jobId: $jobId) { status } }`;
const FINAL = ['SUCCEEDED', 'FAILED', 'CANCELLED', 'SKIPPED'];
// Fast healing for the test: reconcile every second, for executions a second past their time.
const HEALING = { RECONCILE_EVERY_MS: '1000', RECONCILE_GRACE_MS: '1000', LEASE_TTL_MS: '2000' };

const probe = async (url: string, path: string) => (await fetch(url.replace(/\/graphql$/, path))).status;

/** Every execution of the job (up to 100), oldest first. */
async function executionsOf(url: string, token: string, jobId: string) {
  const data = await gqlOk(url, token, EXECUTIONS, { jobId });
  return data.executions.edges.map((e: any) => e.node).reverse();
}

describe('a Redis outage', () => {
  let redis: LocalServer;
  let k: TestKairos;
  const token = tokenFor(uniqueName('redisdown'), 'member');

  beforeAll(async () => {
    redis = await startLocalRedis();
    // Reconcile at its defaults (every 30 s, 60 s of grace): what the restart lost must come back
    // sooner, through the new leader re-enqueueing everything waiting.
    k = await startTestKairos('redisdown', { env: { REDIS_URL: redis.url, LEASE_TTL_MS: '2000' } });
  });
  afterAll(async () => {
    await k?.stop();
    await redis?.stop();
  });

  it('keeps queries answering from MongoDB, loses nothing, and heals on its own once Redis is back empty', async () => {
    const { createJob } = await gqlOk(k.url, token, CREATE, {
      input: { name: 'tick', schedule: { intervalSeconds: 1 }, target: { handler: 'noop' }, misfirePolicy: 'RUN_ALL' },
    });
    const jobId = createJob.job.id;
    await waitUntil(
      'a first run',
      async () => ((await executionsOf(k.url, token, jobId)).some((e: any) => e.status === 'SUCCEEDED') ? true : undefined),
      15_000,
    );

    await redis.kill();
    let triggered;
    try {
      expect(await probe(k.url, '/healthz')).toBe(200);
      expect(await probe(k.url, '/readyz')).toBe(503);
      // Reads come from MongoDB.
      const during = await gql(k.url, token, EXECUTIONS, { jobId });
      expect(during.errors).toBeUndefined();
      // A mutation that must enqueue: stored in MongoDB now, enqueued by reconcile once Redis is back.
      triggered = await gql(k.url, token, TRIGGER, { id: jobId });
      expect(triggered.errors).toBeUndefined();
    } finally {
      // Back even when an expectation failed: Kairos cannot stop cleanly without its Redis.
      await redis.restart();
    }
    await waitUntil('readiness', async () => ((await probe(k.url, '/readyz')) === 200 ? true : undefined), 20_000);
    // Live events flow again through the restarted Redis.
    const client = wsClient(k.url, token);
    const events = new EventCollector<{ executionUpdated: { status: string } }>(client, SUBSCRIBE, { jobId });
    try {
      await events.waitFor((items) => items.some((e) => e.executionUpdated.status === 'SUCCEEDED'), 20_000);
    } finally {
      events.stop();
      await client.dispose();
    }
    await waitForExecution(k.url, token, triggered.data!.triggerJob.execution.id, ['SUCCEEDED'], 30_000);
    // Every occurrence from the start to a few seconds after the outage ran exactly once.
    const until = Date.now() + 3000;
    await waitUntil(
      'runs after the outage',
      async () => {
        const all = await executionsOf(k.url, token, jobId);
        const due = all.filter((e: any) => e.trigger !== 'MANUAL' && Date.parse(e.scheduledFor) <= until);
        return Date.now() > until + 2000 && due.every((e: any) => FINAL.includes(e.status)) ? due : undefined;
      },
      40_000,
    );
    const due = (await executionsOf(k.url, token, jobId)).filter((e: any) => e.trigger !== 'MANUAL' && Date.parse(e.scheduledFor) <= until);
    const times = due.map((e: any) => Date.parse(e.scheduledFor));
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBe(1000);
    expect(due.map((e: any) => e.status)).toEqual(due.map(() => 'SUCCEEDED'));
  });
});

describe('a Redis outage while an attempt runs with its start only in Redis (the deferred claim)', () => {
  let redis: LocalServer;
  let k: TestKairos;
  const token = tokenFor(uniqueName('redisgone'), 'member');
  const EXECUTION = `query($id: ID!) { execution(id: $id) { status attempts { number outcome } } }`;

  beforeAll(async () => {
    redis = await startLocalRedis();
    // Starts are never written on their own during the test: only Redis going away writes them.
    k = await startTestKairos('redisgone', { env: { REDIS_URL: redis.url, LEASE_TTL_MS: '2000', WORKER_CLAIM_AFTER_MS: '60000' } });
  });
  afterAll(async () => {
    await k?.stop();
    await redis?.stop();
  });

  it('writes the start to MongoDB as Redis goes, so a Redis back empty does not start the attempt again', async () => {
    const { createJob } = await gqlOk(k.url, token, CREATE, {
      input: { name: 'long', schedule: { intervalSeconds: 31_536_000 }, target: { handler: 'sleep' }, timeoutSeconds: 60 },
    });
    const client = wsClient(k.url, token);
    const events = new EventCollector<{ executionUpdated: { status: string } }>(client, SUBSCRIBE, { jobId: createJob.job.id });
    let id: string;
    try {
      id = (
        await gqlOk(k.url, token, `mutation($id: ID!) { triggerJob(id: $id, payload: { ms: 8000 }) { execution { id } } }`, {
          id: createJob.job.id,
        })
      ).triggerJob.execution.id;
      await events.waitFor((items) => items.some((e) => e.executionUpdated.status === 'RUNNING'), 10_000);
    } finally {
      events.stop();
      await client.dispose();
    }
    // Running, but MongoDB does not know yet.
    expect((await gqlOk(k.url, token, EXECUTION, { id })).execution.status).toBe('QUEUED');
    await redis.kill();
    try {
      await waitUntil(
        'the start written',
        async () => ((await gqlOk(k.url, token, EXECUTION, { id })).execution.status === 'RUNNING' ? true : undefined),
        5000,
      );
    } finally {
      await redis.restart();
    }
    // The new leader re-enqueues what is waiting; this execution is not, so its one attempt ends it.
    const done = await waitForExecution(k.url, token, id, ['SUCCEEDED', 'FAILED'], 30_000);
    expect(done.status).toBe('SUCCEEDED');
    expect((await gqlOk(k.url, token, EXECUTION, { id })).execution.attempts).toEqual([{ number: 1, outcome: 'SUCCEEDED' }]);
  }, 60_000);
});

describe('a MongoDB outage (server paused with SIGSTOP)', () => {
  let mongo: LocalServer;
  let k: TestKairos;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kairos-mongo-'));
  const tenant = uniqueName('mongodown');
  const token = tokenFor(tenant, 'member');
  const admin = tokenFor(tenant, 'admin');

  beforeAll(async () => {
    mongo = await startLocalMongo({ dataDir: dir });
    k = await startTestKairos('mongodown', { env: { MONGO_URL: mongo.url, ...HEALING } });
  }, 60_000);
  afterAll(async () => {
    await k?.stop();
    await mongo?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers INTERNAL_SERVER_ERROR without internals while paused, and resumes every job with nothing lost', async () => {
    const { createJob } = await gqlOk(k.url, token, CREATE, {
      input: { name: 'tick', schedule: { intervalSeconds: 1 }, target: { handler: 'noop' }, misfirePolicy: 'RUN_ALL' },
    });
    const jobId = createJob.job.id;
    await waitUntil(
      'a first run',
      async () => ((await executionsOf(k.url, token, jobId)).some((e: any) => e.status === 'SUCCEEDED') ? true : undefined),
      15_000,
    );

    const { createApiKey } = await gqlOk(k.url, admin, `mutation { createApiKey(name: "outage", role: MEMBER) { secret } }`);
    mongo.pause();
    const pausedAt = Date.now();
    try {
      expect(await probe(k.url, '/healthz')).toBe(200);
      // SIGSTOP lands within moments, not at once: a probe already on its way may still be answered.
      await waitUntil('readiness to fail', async () => ((await probe(k.url, '/readyz')) === 503 ? true : undefined), 5000);
      // A JWT caller and an API-key caller (whose key cannot be looked up) alike: not their fault.
      const [during, withKey] = await Promise.all([
        gql(k.url, token, EXECUTIONS, { jobId }),
        gql(k.url, createApiKey.secret, EXECUTIONS, { jobId }),
      ]);
      for (const answer of [during, withKey]) {
        expect(answer.errors?.[0]?.extensions?.code).toBe('INTERNAL_SERVER_ERROR');
        expect(JSON.stringify(answer.errors)).not.toMatch(/stack|Mongo|ECONN|at \//);
      }
      const wait = pausedAt + 10_000 - Date.now();
      if (wait > 0) await sleep(wait);
    } finally {
      mongo.resume();
    }
    await waitUntil('readiness', async () => ((await probe(k.url, '/readyz')) === 200 ? true : undefined), 30_000);
    const until = Date.now() + 3000;
    const due = await waitUntil(
      'every occurrence to the end to be final',
      async () => {
        const all = await executionsOf(k.url, token, jobId);
        const due = all.filter((e: any) => Date.parse(e.scheduledFor) <= until);
        return Date.now() > until + 2000 && due.every((e: any) => FINAL.includes(e.status)) ? due : undefined;
      },
      60_000,
    );
    const times = due.map((e: any) => Date.parse(e.scheduledFor));
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBe(1000);
    expect(due.map((e: any) => e.status)).toEqual(due.map(() => 'SUCCEEDED'));
  }, 120_000);
});
