// Covers: src/api/paceRefusals.ts, src/jobs/applySchedule.ts, src/jobs/createJob.ts, src/transitions/reviveCancelled.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from 'graphql-ws';
import { Redis } from 'ioredis';
import { RateLimiter } from '../../src/quotas/rateLimiter.js';
import { ConcurrencyLimiter } from '../../src/quotas/concurrencyLimiter.js';
import type { TenantQuotas } from '../../src/quotas/tenantQuotas.js';
import { RateLimitedError } from '../../src/errors/index.js';
import { createLogger } from '../../src/logger.js';
import { MONGO_URL, REDIS_URL } from '../support/env.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { dropTestState, startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { EventCollector, wsClient } from '../support/subscriptions.js';
import { MongoClient, type ObjectId } from 'mongodb';
import { Queue } from 'bullmq';
import { ExecutionQueues } from '../../src/queue/executionQueues.js';
import { QueueShards } from '../../src/queue/queueShards.js';
import { queueEntry } from '../../src/queue/queueEntry.js';
import { fromGlobalId } from '../../src/ids/globalId.js';
import type { ExecutionDoc } from '../../src/domain/execution.js';
import { waitUntil } from '../support/waitFor.js';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const TRIGGER = `mutation($id: ID!, $payload: JSON) { triggerJob(id: $id, payload: $payload) { execution { id } } }`;
const COUNTS = `{ viewer { quota { jobCount } } executionStats(since: "2000-01-01T00:00:00Z") { total } }`;
const job = (name: string, extra: Record<string, unknown> = {}) => ({
  input: { name, schedule: { intervalSeconds: 3600 }, target: { handler: 'noop' }, paused: true, ...extra },
});

/** A job's executions as the budget tests read them. */
const RECORDS = `query($jobId: ID!) { executions(first: 100, filter: { jobId: $jobId }) {
  edges { node { status trigger scheduledFor skippedCount skippedUntil reason } } } }`;
const STATS = `query($jobId: ID!, $since: DateTime!, $until: DateTime!) {
  executionStats(jobId: $jobId, since: $since, until: $until) { total byStatus { status count } } }`;
interface Row {
  status: string;
  trigger: string;
  scheduledFor: string;
  skippedCount: number | null;
  skippedUntil: string | null;
  reason: string | null;
}
/** Every occurrence instant (ms) each row stands for: its own, or a budget record's consecutive every-second ones. */
const instantsOf = (rows: Row[]) =>
  rows.flatMap((r) => Array.from({ length: r.skippedCount ?? 1 }, (_, i) => Date.parse(r.scheduledFor) + i * 1000));

/** A clock the test moves by hand. */
function steppedClock(start = Date.parse('2030-01-01T00:00:00Z')) {
  let now = start;
  return { clock: () => new Date(now), advance: (ms: number) => (now += ms) };
}

describe('quotas', () => {
  describe('limiters (real Redis, stepped clock)', () => {
    let redis: Redis;
    const prefix = uniqueName('limits');
    const quotas = { of: async () => ({ maxJobs: 10, maxConcurrentExecutions: 2, maxExecutionsPerMinute: 10 }) } as unknown as TenantQuotas;

    beforeAll(() => {
      redis = new Redis(REDIS_URL);
    });
    afterAll(async () => {
      await redis.quit();
      await dropTestState(prefix, prefix);
    });

    it('rate: allows a burst of the limit, then one more per minute / limit, with an exact retry-after', async () => {
      const time = steppedClock();
      const limiter = new RateLimiter(redis, prefix, time.clock, createLogger({ test: 'quotas' }, 'warn'));
      for (let i = 0; i < 6; i++) await limiter.take('writes', 't1', 6);
      const refused = await limiter.take('writes', 't1', 6).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(RateLimitedError);
      expect((refused as RateLimitedError).details.retryAfterSeconds).toBe(10);
      time.advance(9_000);
      await expect(limiter.take('writes', 't1', 6)).rejects.toThrow(RateLimitedError);
      time.advance(1_000);
      await limiter.take('writes', 't1', 6);
      // Another tenant and another bucket have their own counts.
      await limiter.take('writes', 't2', 6);
      await limiter.take('other', 't1', 6);
    });

    it("rate: a burst window that holds no whole number of tokens keeps the minute's rate", async () => {
      const time = steppedClock();
      const limiter = new RateLimiter(redis, prefix, time.clock, createLogger({ test: 'quotas' }, 'warn'));
      // 5 a minute with a 10 s burst window: a burst of one token, then one every 12 s (not every 10 s).
      await limiter.take('burst', 't1', 5, 1, { burstMs: 10_000 });
      await expect(limiter.take('burst', 't1', 5, 1, { burstMs: 10_000 })).rejects.toThrow(RateLimitedError);
      time.advance(10_000);
      const refused = await limiter.take('burst', 't1', 5, 1, { burstMs: 10_000 }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(RateLimitedError);
      expect((refused as RateLimitedError).details.retryAfterSeconds).toBe(2);
      time.advance(2_000);
      await limiter.take('burst', 't1', 5, 1, { burstMs: 10_000 });
      // 25 a minute with the same window: bursts of 4 (25 * 10 / 60 = 4.17, rounded), 2.4 s apart after.
      for (let i = 0; i < 4; i++) await limiter.take('burst', 't2', 25, 1, { burstMs: 10_000 });
      await expect(limiter.take('burst', 't2', 25, 1, { burstMs: 10_000 })).rejects.toThrow(RateLimitedError);
      time.advance(2_400);
      await limiter.take('burst', 't2', 25, 1, { burstMs: 10_000 });
      await expect(limiter.take('burst', 't2', 25, 1, { burstMs: 10_000 })).rejects.toThrow(RateLimitedError);
    });

    it('rate: takes several tokens all or nothing', async () => {
      const time = steppedClock();
      const limiter = new RateLimiter(redis, prefix, time.clock, createLogger({ test: 'quotas' }, 'warn'));
      await limiter.take('batch', 't1', 5, 4);
      await expect(limiter.take('batch', 't1', 5, 2)).rejects.toThrow(RateLimitedError);
      // The refused request took nothing: the one token left is still there.
      await limiter.take('batch', 't1', 5, 1);
      await expect(limiter.take('batch', 't1', 5, 1)).rejects.toThrow(RateLimitedError);
    });

    it('rate: takes up to what the bucket has, and what it took counts for take() too', async () => {
      const time = steppedClock();
      const limiter = new RateLimiter(redis, prefix, time.clock, createLogger({ test: 'quotas' }, 'warn'));
      expect(await limiter.takeUpTo('scheduled', 't1', 6, 4)).toBe(4);
      expect(await limiter.takeUpTo('scheduled', 't1', 6, 4)).toBe(2);
      expect(await limiter.takeUpTo('scheduled', 't1', 6, 4)).toBe(0);
      await expect(limiter.take('scheduled', 't1', 6)).rejects.toThrow(RateLimitedError);
      // One token a tenth of a minute.
      time.advance(10_000);
      expect(await limiter.takeUpTo('scheduled', 't1', 6, 4)).toBe(1);
      time.advance(25_000);
      expect(await limiter.takeUpTo('scheduled', 't1', 6, 4)).toBe(2);
      expect(await limiter.takeUpTo('scheduled', 't2', 6, 9)).toBe(6);
    });

    /** A step: take a slot (tenant, execution, ttl → expected), release one, or move the clock. */
    type Step = ['take', string, string, number, string] | ['release', string, string] | ['advance', number] | ['held', string, number];
    it.each<[string, Step[]]>([
      [
        'give out maxConcurrentExecutions slots, recognise a redelivery, and free a released slot',
        [
          ['take', 't', 'e1', 60_000, 'new'],
          ['take', 't', 'e2', 60_000, 'new'],
          ['take', 't', 'e3', 60_000, 'full'],
          ['take', 't', 'e1', 60_000, 'held'],
          ['take', 'other', 'e3', 60_000, 'new'],
          ['release', 't', 'e1'],
          ['take', 't', 'e3', 60_000, 'new'],
          ['held', 't', 2],
        ],
      ],
      [
        'let a slot whose worker died expire after its TTL',
        [
          ['take', 'dead', 'a', 30_000, 'new'],
          ['take', 'dead', 'b', 90_000, 'new'],
          ['take', 'dead', 'c', 30_000, 'full'],
          ['advance', 30_001],
          ['take', 'dead', 'c', 30_000, 'new'],
          ['advance', 90_000],
          ['held', 'dead', 0],
        ],
      ],
    ])('slots: %s', async (_label, steps) => {
      const time = steppedClock();
      const slots = new ConcurrencyLimiter(redis, `${prefix}:${_label.length}`, time.clock, quotas);
      for (const step of steps) {
        if (step[0] === 'take') expect([step, (await slots.take(step[1], step[2], step[3])).slot]).toEqual([step, step[4]]);
        else if (step[0] === 'release') await slots.release(step[1], step[2]);
        else if (step[0] === 'advance') time.advance(step[1]);
        else expect(await slots.held(step[1])).toBe(step[2]);
      }
    });

    it('counts the executions it refused, once each, until they start or stop trying', async () => {
      const time = steppedClock();
      const slots = new ConcurrencyLimiter(redis, `${prefix}:waiting`, time.clock, quotas, 10_000);
      const take = async (execution: string) => slots.take('t', execution, 60_000);
      expect(await take('run1')).toEqual({ slot: 'new', waiting: 0, limit: 2 });
      expect(await take('run2')).toEqual({ slot: 'new', waiting: 0, limit: 2 });
      expect(await take('w1')).toEqual({ slot: 'full', waiting: 1, limit: 2 });
      expect(await take('w2')).toEqual({ slot: 'full', waiting: 2, limit: 2 });
      // A waiter trying again is still one waiter (now the newest).
      time.advance(1);
      expect(await take('w1')).toEqual({ slot: 'full', waiting: 2, limit: 2 });
      // A freed slot hands out the oldest waiter, which leaves the count, to be woken.
      expect(await slots.release('t', 'run1')).toBe('w2');
      expect(await take('w2')).toEqual({ slot: 'new', waiting: 1, limit: 2 });
      // w1 gave up (its execution was cancelled, say): it stops counting after the waiting TTL.
      time.advance(10_001);
      expect(await take('w3')).toEqual({ slot: 'full', waiting: 1, limit: 2 });
    });

    it('hands out the oldest waiter to wake when a slot frees, and none while every slot is taken', async () => {
      const time = steppedClock();
      const slots = new ConcurrencyLimiter(redis, `${prefix}:handout`, time.clock, quotas, 10_000);
      const take = async (execution: string) => (await slots.take('t', execution, 60_000, `waiter-${execution}`)).slot;
      expect([await take('run1'), await take('run2'), await take('w1')]).toEqual(['new', 'new', 'full']);
      time.advance(1);
      expect(await take('w2')).toBe('full');
      expect(await slots.release('t', null)).toBeNull();
      expect(await slots.release('t', 'run1')).toBe('waiter-w1');
      // Handed out, w1 no longer waits; the slot is still free until someone takes it.
      expect(await slots.release('t', null)).toBe('waiter-w2');
      expect(await slots.release('t', null)).toBeNull();
      expect(await take('w2')).toBe('new');
    });
  });

  describe('maxJobs', () => {
    let k: TestKairos;

    beforeAll(async () => {
      k = await startTestKairos('maxjobs', { roles: ['api'], env: { DEFAULT_MAX_JOBS: '3' } });
    });
    afterAll(async () => {
      await k?.stop();
    });

    it('refuses the job past the quota with QUOTA_EXCEEDED and stores nothing', async () => {
      const member = tokenFor(uniqueName('mj'), 'member');
      for (let i = 0; i < 3; i++) await gqlOk(k.url, member, CREATE, job(`j${i}`));
      const refused = await gql(k.url, member, CREATE, job('one too many'));
      expect(refused.errors?.[0].extensions).toEqual({ code: 'QUOTA_EXCEEDED', maxJobs: 3 });
      expect((await gqlOk(k.url, member, COUNTS)).viewer.quota.jobCount).toBe(3);
    });

    it('never exceeds the quota under concurrent creates', async () => {
      const member = tokenFor(uniqueName('mjc'), 'member');
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => gql(k.url, member, CREATE, job(`c${i}`))));
      const created = results.filter((r) => r.data?.createJob).length;
      expect(results.every((r) => r.data?.createJob || r.errors?.[0].extensions?.code === 'QUOTA_EXCEEDED')).toBe(true);
      // Decided one at a time (a per-tenant lock): exactly the quota, not fewer.
      expect(created).toBe(3);
      expect((await gqlOk(k.url, member, COUNTS)).viewer.quota.jobCount).toBe(created);
    });
  });

  describe('maxExecutionsPerMinute: the burst of writes', () => {
    let k: TestKairos;
    beforeAll(async () => {
      k = await startTestKairos('writeburst', {
        roles: ['api'],
        env: { DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '60', RATE_LIMITED_ANSWER_DELAY_MS: '400' },
      });
    });
    afterAll(async () => {
      await k?.stop();
    });

    it("admits what 10 s refill at once (10 of 60 a minute), not the minute's allowance, then one a second", async () => {
      const member = tokenFor(uniqueName('burst'), 'member');
      const id = (await gqlOk(k.url, member, CREATE, job('burst'))).createJob.job.id;
      const triggers = (n: number) =>
        `mutation($id: ID!) { ${Array.from({ length: n }, (_, i) => `t${i}: triggerJob(id: $id) { execution { id } }`).join(' ')} }`;
      // The create and nine triggers spend the burst of ten.
      await gqlOk(k.url, member, triggers(9), { id });
      const sentAt = performance.now();
      const refused = await gql(k.url, member, triggers(2), { id });
      expect(refused.errors?.[0].extensions?.code).toBe('RATE_LIMITED');
      expect(refused.errors?.[0].extensions?.retryAfterSeconds).toBeLessThanOrEqual(3);
      // Paced: the refusal went out after RATE_LIMITED_ANSWER_DELAY_MS (its Retry-After, at least 1 s, is longer).
      expect(performance.now() - sentAt).toBeGreaterThanOrEqual(390);
      await waitUntil('a write refilled', async () => ((await gql(k.url, member, TRIGGER, { id })).errors ? undefined : true), 5000);
    });
  });

  describe('maxExecutionsPerMinute: manual triggers and writes', () => {
    let k: TestKairos;
    let replica: TestKairos;

    beforeAll(async () => {
      k = await startTestKairos('ratelimit', { roles: ['api'], env: { DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '5' } });
      replica = await startTestKairos('ratelimit', { roles: ['api'], joining: k, env: { DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '5' } });
    });
    afterAll(async () => {
      await replica?.stop();
      await k?.stop();
    });

    it('counts writes on every replica, then answers RATE_LIMITED with a retry-after hint and writes nothing', async () => {
      const member = tokenFor(uniqueName('rl'), 'member');
      const id = (await gqlOk(k.url, member, CREATE, job('limited'))).createJob.job.id;
      await gqlOk(k.url, member, TRIGGER, { id });
      await gqlOk(replica.url, member, TRIGGER, { id });
      await gqlOk(k.url, member, TRIGGER, { id });
      await gqlOk(replica.url, member, TRIGGER, { id });
      // Five writes spent (one create, four triggers), two on each replica and one more.
      const response = await fetch(replica.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${member}` },
        body: JSON.stringify({ query: TRIGGER, variables: { id } }),
      });
      const body = (await response.json()) as {
        data?: unknown;
        errors: { message: string; extensions: { code: string; retryAfterSeconds: number } }[];
      };
      expect(response.status).toBe(429);
      expect(body.data ?? null).toBeNull();
      expect(body.errors[0].extensions.code).toBe('RATE_LIMITED');
      expect(body.errors[0].extensions.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(body.errors[0].extensions.retryAfterSeconds).toBeLessThanOrEqual(12);
      expect(Number(response.headers.get('retry-after'))).toBe(body.errors[0].extensions.retryAfterSeconds);
      // Reads still answer, and show the four executions only.
      const counts = await gqlOk(k.url, member, COUNTS);
      expect(counts.executionStats.total).toBe(4);
      // Another tenant has its own allowance.
      await gqlOk(k.url, tokenFor(uniqueName('rl2'), 'member'), CREATE, job('fine'));
    });

    it('counts every aliased mutation of a document and refuses the whole document, over HTTP and WebSocket', async () => {
      const member = tokenFor(uniqueName('rla'), 'member');
      const id = (await gqlOk(k.url, member, CREATE, job('aliased'))).createJob.job.id;
      const triggers = (n: number) =>
        `mutation($id: ID!) { ${Array.from({ length: n }, (_, i) => `t${i}: triggerJob(id: $id) { execution { id } }`).join(' ')} }`;
      await gqlOk(k.url, member, triggers(3), { id });
      // One write left: a document of two is refused whole.
      const refused = await gql(k.url, member, triggers(2), { id });
      expect(refused.errors?.[0].extensions?.code).toBe('RATE_LIMITED');
      // The last write, spent over the WebSocket, counts too; the next one there is refused.
      const client = wsClient(k.url, member);
      const overSocket = () =>
        new Promise<unknown>((resolve) => {
          client.subscribe(
            { query: TRIGGER, variables: { id } },
            { next: (value) => resolve(value.errors ?? value.data), error: resolve, complete: () => undefined },
          );
        });
      expect(await overSocket()).toHaveProperty('triggerJob.execution.id');
      const errors = (await overSocket()) as { extensions: { code: string; retryAfterSeconds: number } }[];
      await client.dispose();
      expect(errors[0].extensions.code).toBe('RATE_LIMITED');
      expect(errors[0].extensions.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect((await gqlOk(k.url, member, COUNTS)).executionStats.total).toBe(4);
    });
  });

  describe('maxExecutionsPerMinute: scheduled occurrences past the budget', () => {
    // The scheduler in a process of its own, so that the test can stop it and read a settled record.
    let k: TestKairos;
    let scheduler: TestKairos | undefined;
    const env = { DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '10' };
    beforeAll(async () => {
      k = await startTestKairos('budgetskips', { roles: ['api', 'worker'], env });
      scheduler = await startTestKairos('budgetskips', { roles: ['scheduler'], joining: k, env });
    });
    afterAll(async () => {
      await scheduler?.stop();
      await k?.stop();
    });

    it('records the skips of every-second jobs a few documents per job, and every occurrence exactly once', async () => {
      const member = tokenFor(uniqueName('budgetskips'), 'member');
      const started = Date.now();
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        ids.push(
          (
            await gqlOk(k.url, member, CREATE, {
              input: { name: `every second ${i}`, schedule: { intervalSeconds: 1 }, target: { handler: 'noop' } },
            })
          ).createJob.job.id,
        );
      }
      const rowsOf = async (jobId: string): Promise<Row[]> =>
        (await gqlOk(k.url, member, RECORDS, { jobId })).executions.edges.map((e: { node: Row }) => e.node);
      // Created with 30 s of occurrences each (the API's look-ahead); the sweep takes each further within seconds.
      await waitUntil(
        'the sweep to materialise every job past its create-time look-ahead',
        async () => {
          for (const id of ids) {
            const instants = instantsOf(await rowsOf(id));
            if (instants.length === 0 || Math.max(...instants) - Math.min(...instants) < 35_000) return undefined;
          }
          return true;
        },
        20_000,
        250,
      );
      // Stopped, the scheduler leaves no pass half-written behind.
      await scheduler!.stop();
      scheduler = undefined;
      const elapsedMs = Date.now() - started;

      let ran = 0;
      for (const id of ids) {
        const rows = await rowsOf(id);
        const skips = rows.filter((r) => r.status === 'SKIPPED');
        // One record per pass that materialised the job: the API's, then one per 15 s or more of sweeping.
        expect(skips.length).toBeGreaterThanOrEqual(1);
        expect(skips.length).toBeLessThanOrEqual(1 + Math.ceil(elapsedMs / 15_000));
        for (const r of skips) {
          expect(r.skippedCount).toBeGreaterThanOrEqual(1);
          expect(Date.parse(r.skippedUntil!) - Date.parse(r.scheduledFor)).toBe((r.skippedCount! - 1) * 1000);
          expect(r.reason).toMatch(/over the tenant's budget of 10 scheduled executions per minute \(maxExecutionsPerMinute\)$/);
        }
        ran += rows.length - skips.length;
        // Run or skipped, each occurrence from the first to the last materialised once: none missing, none twice.
        const instants = instantsOf(rows).sort((a, b) => a - b);
        expect(instants.slice(1).map((at, i) => at - instants[i])).toEqual(Array(instants.length - 1).fill(1000));
        // And executionStats counts occurrences, not documents.
        const since = new Date(instants[0]).toISOString();
        const until = new Date(instants[instants.length - 1] + 1).toISOString();
        const stats = (await gqlOk(k.url, member, STATS, { jobId: id, since, until })).executionStats;
        expect(stats.total).toBe(instants.length);
        const skipped = stats.byStatus.find((c: { status: string }) => c.status === 'SKIPPED')?.count;
        expect(skipped).toBe(skips.reduce((sum, r) => sum + r.skippedCount!, 0));
      }
      // A burst of the budget ran, and no more than it refilled meanwhile.
      expect(ran).toBeGreaterThanOrEqual(10);
      expect(ran).toBeLessThanOrEqual(10 + Math.ceil((elapsedMs / 60_000) * 10));
    });
  });

  describe('maxExecutionsPerMinute: a job paused and resumed past the budget', () => {
    let k: TestKairos;
    let scheduler: TestKairos | undefined;
    // Budget for the first minute of one job: when it is resumed, its budget is spent.
    const env = { DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '60' };
    beforeAll(async () => {
      k = await startTestKairos('budgetresume', { roles: ['api', 'worker'], env });
      scheduler = await startTestKairos('budgetresume', { roles: ['scheduler'], joining: k, env });
    });
    afterAll(async () => {
      await scheduler?.stop();
      await k?.stop();
    });

    it('records every occurrence once: those materialised before the pause, revived or cancelled, are not recorded skipped too', async () => {
      const member = tokenFor(uniqueName('budgetresume'), 'member');
      const input = { name: 'every second', schedule: { cron: '* * * * * *' }, target: { handler: 'noop' } };
      const id = (await gqlOk(k.url, member, CREATE, { input })).createJob.job.id;
      const rowsOf = async (): Promise<Row[]> =>
        (await gqlOk(k.url, member, RECORDS, { jobId: id })).executions.edges.map((e: { node: Row }) => e.node);
      const reach = async () => {
        const instants = instantsOf(await rowsOf());
        return instants.length > 0 ? Math.max(...instants) : 0;
      };
      // The sweep materialises it well past the API's look-ahead: all run, a minute of budget.
      const created = Date.now();
      await waitUntil(
        'the sweep to take the job past its create-time look-ahead',
        async () => ((await reach()) > created + 35_000 ? true : undefined),
        20_000,
        250,
      );
      const before = await reach();
      await gqlOk(k.url, member, `mutation($id: ID!) { pauseJob(id: $id) { job { id } } }`, { id });
      await gqlOk(k.url, member, `mutation($id: ID!) { resumeJob(id: $id) { job { id } } }`, { id });
      // Now past its budget: the sweep goes over the old ones again and records those beyond SKIPPED.
      await waitUntil(
        'the sweep to take the job past where it was',
        async () => ((await reach()) > before ? true : undefined),
        20_000,
        250,
      );
      await scheduler!.stop();
      scheduler = undefined;

      const rows = await rowsOf();
      expect(rows.some((r) => r.status === 'SKIPPED')).toBe(true);
      expect(rows.some((r) => r.status === 'CANCELLED')).toBe(true);
      // Run, cancelled by the pause or skipped, each occurrence from the first to the last once.
      const instants = instantsOf(rows).sort((a, b) => a - b);
      expect(instants.slice(1).map((at, i) => at - instants[i])).toEqual(Array(instants.length - 1).fill(1000));
    });
  });

  describe('maxConcurrentExecutions', () => {
    let k: TestKairos;
    let client: Client;

    beforeAll(async () => {
      k = await startTestKairos('concurrency', { env: { DEFAULT_MAX_CONCURRENT_EXECUTIONS: '2' } });
    });
    afterAll(async () => {
      await client?.dispose();
      await k?.stop();
    });

    it('runs at most the quota at once; the others wait and all succeed', async () => {
      const tenant = uniqueName('conc');
      const member = tokenFor(tenant, 'member');
      client = wsClient(k.url, member);
      type Event = { executionUpdated: { status: string; execution: { id: string } } };
      const events = new EventCollector<Event>(client, 'subscription { executionUpdated { status execution { id } } }');
      const id = (await gqlOk(k.url, member, CREATE, job('sleeper', { target: { handler: 'sleep' }, payload: { ms: 600 } }))).createJob.job
        .id;
      // Subscriptions start asynchronously: a warm-up run's end shows this one is live.
      await gqlOk(k.url, member, TRIGGER, { id, payload: { ms: 0 } });
      await events.waitFor((items) => items.some((e) => e.executionUpdated.status === 'SUCCEEDED'), 15_000);
      const ids = new Set<string>();
      const started = Date.now();
      const n = 6;
      for (let i = 0; i < n; i++) ids.add((await gqlOk(k.url, member, TRIGGER, { id })).triggerJob.execution.id);
      const ours = (items: Event[]) => items.filter((e) => ids.has(e.executionUpdated.execution.id));
      const done = ours(
        await events.waitFor((items) => ours(items).filter((e) => e.executionUpdated.status === 'SUCCEEDED').length >= n, 30_000),
      );
      const elapsedMs = Date.now() - started;
      let running = 0;
      let most = 0;
      for (const e of done) {
        if (e.executionUpdated.status === 'RUNNING') running += 1;
        if (['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(e.executionUpdated.status)) running -= 1;
        most = Math.max(most, running);
      }
      expect(most).toBe(2);
      expect(done.filter((e) => e.executionUpdated.status === 'FAILED')).toEqual([]);
      // Every slot was given back.
      const redis = new Redis(REDIS_URL);
      const held = await redis.zcard(`${k.prefix}:slots:{${tenant}}`).finally(() => redis.quit());
      expect(held).toBe(0);
      process.stdout.write(`quotas: ${n} executions of 600 ms with maxConcurrentExecutions=2 took ${elapsedMs} ms\n`);
    });

    it('starts a waiting execution as soon as a slot frees, not at its next timed try', async () => {
      const member = tokenFor(uniqueName('concwake'), 'member');
      const id = (await gqlOk(k.url, member, CREATE, job('sleeper', { target: { handler: 'sleep' }, payload: { ms: 1500 } }))).createJob.job
        .id;
      const ids: ObjectId[] = [];
      for (let i = 0; i < 8; i++)
        ids.push(fromGlobalId((await gqlOk(k.url, member, TRIGGER, { id })).triggerJob.execution.id, 'Execution')!.id);
      const mongo = await MongoClient.connect(MONGO_URL);
      try {
        const executions = mongo.db(k.dbName).collection<ExecutionDoc>('executions');
        // Two run at once; six wait, three per slot, so their timed tries come 6 to 9 s apart (tenantWait.ts).
        const docs = await waitUntil(
          'all eight to succeed',
          async () => {
            const found = await executions.find({ _id: { $in: ids } }).toArray();
            return found.length === 8 && found.every((d) => d.status === 'SUCCEEDED') ? found : undefined;
          },
          40_000,
          200,
        );
        const attempts = docs.map((d) => d.attempts[0]);
        const ends = attempts.map((a) => a.finishedAt!.getTime());
        const starts = attempts.map((a) => a.startedAt.getTime()).sort((a, b) => a - b);
        // Each start after the first two follows the end that freed its slot closely.
        const gaps = starts.slice(2).map((start) => start - Math.max(...ends.filter((end) => end <= start + 50)));
        expect(gaps.every((gap) => gap < 1000)).toBe(true);
      } finally {
        await mongo.close();
      }
    });

    it('keeps one queue entry for an execution waiting at the quota, however often reconcile re-enqueues it', async () => {
      const tenant = uniqueName('concwait');
      const member = tokenFor(tenant, 'member');
      const id = (await gqlOk(k.url, member, CREATE, job('sleeper', { target: { handler: 'sleep' }, payload: { ms: 3000 } }))).createJob.job
        .id;
      const triggered: string[] = [];
      for (let i = 0; i < 3; i++) triggered.push((await gqlOk(k.url, member, TRIGGER, { id })).triggerJob.execution.id);
      const mongo = await MongoClient.connect(MONGO_URL);
      const shards = new QueueShards(1);
      const queues = new ExecutionQueues({ url: REDIS_URL }, k.prefix, () => undefined, shards, null);
      const queue = new Queue(shards.names('IO_BOUND')[0], { connection: { url: REDIS_URL }, prefix: k.prefix });
      try {
        const executions = mongo.db(k.dbName).collection<ExecutionDoc>('executions');
        const ids = triggered.map((g) => fromGlobalId(g, 'Execution')!.id);
        // Two run; the third waits for a slot, QUEUED.
        const waiting = await waitUntil(
          'two running and one waiting',
          async () => {
            const docs = await Promise.all(ids.map((_id) => executions.findOne({ _id })));
            const running = docs.filter((d) => d?.status === 'RUNNING');
            const queued = docs.filter((d) => d?.status === 'QUEUED');
            return running.length === 2 && queued.length === 1 ? queued[0]! : undefined;
          },
          10_000,
          50,
        );
        const entriesOf = async () => {
          const all = await queue.getJobs(['waiting', 'delayed', 'active', 'prioritized']);
          return all.filter((e) => e?.data.executionId === waiting._id.toHexString());
        };
        // Let it be refused at least once, then re-enqueue it as reconcile does, three times.
        await new Promise((resolve) => setTimeout(resolve, 800));
        for (let i = 0; i < 3; i++) {
          await queues.enqueue([queueEntry(waiting, new Date(), { kind: 'waiting' })]);
          expect(await entriesOf()).toHaveLength(1);
          await new Promise((resolve) => setTimeout(resolve, 300));
        }
        // And it still runs once a slot is free.
        await waitUntil(
          'the waiting one to succeed',
          async () => ((await executions.findOne({ _id: waiting._id }))?.status === 'SUCCEEDED' ? true : undefined),
          20_000,
          100,
        );
        expect((await executions.findOne({ _id: waiting._id }))?.attempts).toHaveLength(1);
      } finally {
        await queue.close();
        await queues.close();
        await mongo.close();
      }
    });
  });
});
