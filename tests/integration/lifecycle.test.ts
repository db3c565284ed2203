// Covers: src/jobs/applySchedule.ts, src/jobs/cancelReasons.ts, src/jobs/createJob.ts, src/jobs/deleteJob.ts, src/jobs/triggerJob.ts,
// src/jobs/updateJob.ts, src/resolvers/deps.ts, src/resolvers/job.resolver.ts, src/resolvers/mappers.ts, src/transitions/reviveCancelled.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Queue } from 'bullmq';
import type { Client } from 'graphql-ws';
import { MongoClient, ObjectId } from 'mongodb';
import type { JobDoc } from '../../src/domain/job.js';
import { ConflictError } from '../../src/errors/index.js';
import { fromGlobalId, toGlobalId } from '../../src/ids/globalId.js';
import { changeJob } from '../../src/jobs/changeJob.js';
import type { JobScheduling } from '../../src/scheduler/jobScheduling.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** These changes leave the schedule alone, so the scheduling side is never told: any call fails the test. */
const untouchedScheduling = new Proxy(
  {},
  { get: () => () => Promise.reject(new Error('the scheduling side was told of a change')) },
) as unknown as JobScheduling;
import { JobStore } from '../../src/store/jobStore.js';
import { QueueShards } from '../../src/queue/executionQueues.js';
import { waitingEntryId } from '../../src/queue/queueEntry.js';
import { MONGO_URL, REDIS_URL } from '../support/env.js';
import { gql, gqlOk, type GraphQLResponse } from '../support/graphqlClient.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { startReceiver } from '../support/httpReceiver.js';
import { EventCollector, wsClient } from '../support/subscriptions.js';

const JOB_FIELDS = `id name description status nextRunAt lastRunAt createdAt updatedAt payload workload timeoutSeconds overlapPolicy misfirePolicy
  schedule { kind cron timezone intervalSeconds runAt startAt endAt jitterSeconds }
  target { __typename ... on HttpTarget { url method headers { name value } } ... on HandlerTarget { handler } }
  retryPolicy { maxAttempts initialBackoffSeconds maxBackoffSeconds backoffMultiplier }`;
const EXECUTION_FIELDS = `id jobId status trigger scheduledFor createdAt startedAt finishedAt reason result attempt job { id }`;

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { ${JOB_FIELDS} } } }`;
const UPDATE = `mutation($input: UpdateJobInput!) { updateJob(input: $input) { job { ${JOB_FIELDS} } } }`;
const PAUSE = `mutation($id: ID!) { pauseJob(id: $id) { job { ${JOB_FIELDS} } } }`;
const RESUME = `mutation($id: ID!) { resumeJob(id: $id) { job { ${JOB_FIELDS} } } }`;
const DELETE = `mutation($id: ID!) { deleteJob(id: $id) { deletedJobId } }`;
const TRIGGER = `mutation($id: ID!, $payload: JSON) { triggerJob(id: $id, payload: $payload) { execution { ${EXECUTION_FIELDS} } } }`;
const JOB = `query($id: ID!) { job(id: $id) { ${JOB_FIELDS} } }`;
const EXECUTIONS = `query($jobId: ID) { executions(first: 100, filter: { jobId: $jobId }) { edges { node { ${EXECUTION_FIELDS} } } } }`;
const SUBSCRIBE = `subscription { executionUpdated { previousStatus status execution { id jobId status reason } } }`;

type Job = Record<string, any> & { id: string; status: string; nextRunAt: string | null; updatedAt: string };
type Execution = Record<string, any> & {
  id: string;
  status: string;
  trigger: string;
  reason: string | null;
  scheduledFor: string;
  createdAt: string;
};
type Event = {
  executionUpdated: {
    previousStatus: string | null;
    status: string;
    execution: { id: string; jobId: string; status: string; reason: string | null };
  };
};

const HOUR_MS = 3600_000;
const noop = { handler: 'noop' };

function expectError(result: GraphQLResponse, code: string): { message: string; extensions?: Record<string, unknown> } {
  expect(result.errors?.[0]?.extensions?.code).toBe(code);
  expect(result.data ?? null).toBeNull();
  return result.errors![0];
}

/** Waits for a condition that is not announced by an event (polls; never a fixed sleep). */
async function waitUntil<T>(probe: () => Promise<T | undefined | null | false>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe('job lifecycle: updateJob, pauseJob, resumeJob, deleteJob, triggerJob', () => {
  let k: TestKairos;
  let client: Client;
  let events: EventCollector<Event>;
  let queue: Queue;
  let mongo: MongoClient;
  /** The MongoDB-wire server is FerretDB (whose updates are not atomic compare-and-sets). */
  let ferretdb = false;
  const tenantA = uniqueName('lifeA');
  const tokenA = tokenFor(tenantA, 'member');
  const tokenB = tokenFor(uniqueName('lifeB'), 'member');
  const receiver = startReceiver(() => ({ status: 503, body: 'down' }));

  beforeAll(async () => {
    k = await startTestKairos('lifecycle');
    queue = new Queue(new QueueShards(1).name('IO_BOUND', 0), {
      connection: { url: REDIS_URL, maxRetriesPerRequest: null },
      prefix: k.prefix,
    });
    mongo = new MongoClient(MONGO_URL);
    ferretdb = 'ferretdbVersion' in (await mongo.db(k.dbName).admin().command({ buildInfo: 1 }));
    client = wsClient(k.url, tokenA);
    // The server registers a subscription asynchronously: create probe one-offs until it sees one run.
    events = new EventCollector<Event>(client, SUBSCRIBE);
    for (let i = 0; i < 20 && events.items.length === 0; i++) {
      await create({ name: `probe-${i}`, schedule: { runAt: new Date().toISOString() } });
      await events.waitFor((items) => items.length > 0, 500).catch(() => undefined);
    }
    await events.waitFor((items) => items.some((e) => e.executionUpdated.status === 'SUCCEEDED'), 10_000);
  });
  afterAll(async () => {
    events?.stop();
    await client?.dispose();
    await queue?.close();
    await mongo?.close();
    await (await receiver).close();
    await k?.stop();
  });

  async function create(input: Record<string, unknown>, token = tokenA): Promise<Job> {
    return (await gqlOk(k.url, token, CREATE, { input: { target: noop, ...input } })).createJob.job;
  }
  async function readJob(id: string, token = tokenA): Promise<Job | null> {
    return (await gqlOk(k.url, token, JOB, { id })).job;
  }
  async function executionsOf(jobId: string): Promise<Execution[]> {
    return (await gqlOk(k.url, tokenA, EXECUTIONS, { jobId })).executions.edges.map((e: any) => e.node);
  }
  async function update(input: Record<string, unknown>): Promise<Job> {
    return (await gqlOk(k.url, tokenA, UPDATE, { input })).updateJob.job;
  }
  /** The execution's entry in the IO queue (round: the retry round), or undefined. */
  async function queueEntry(executionId: string, round = 0) {
    return queue.getJob(waitingEntryId(fromGlobalId(executionId, 'Execution')!.id.toHexString(), round ? 'RETRYING' : 'QUEUED', round));
  }
  async function jobVersion(id: string): Promise<number | undefined> {
    const doc = await mongo
      .db(k.dbName)
      .collection('jobs')
      .findOne({ _id: fromGlobalId(id, 'Job')!.id });
    return doc?.version;
  }
  function eventOf(executionId: string, status: string): Promise<Event['executionUpdated']> {
    return events
      .waitFor(
        (items) => items.some((e) => e.executionUpdated.execution.id === executionId && e.executionUpdated.status === status),
        15_000,
      )
      .then(
        (items) =>
          items.find((e) => e.executionUpdated.execution.id === executionId && e.executionUpdated.status === status)!.executionUpdated,
      );
  }

  describe('updateJob', () => {
    it('changes only the given fields, clears nullable ones given as null, and bumps the version', async () => {
      const created = await create({
        name: 'report',
        description: 'the daily report',
        schedule: { intervalSeconds: 3600 },
        payload: { a: 1 },
        timeoutSeconds: 30,
        retryPolicy: { maxAttempts: 4 },
      });
      expect(await jobVersion(created.id)).toBe(1);

      const renamed = await update({ id: created.id, name: 'Report v2', retryPolicy: { initialBackoffSeconds: 2 } });
      expect(renamed).toEqual({
        ...created,
        name: 'Report v2',
        retryPolicy: { maxAttempts: 4, initialBackoffSeconds: 2, maxBackoffSeconds: 300, backoffMultiplier: 2 },
        updatedAt: renamed.updatedAt,
      });
      expect(Date.parse(renamed.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));
      expect(await jobVersion(created.id)).toBe(2);

      const r = await receiver;
      const changed = await update({
        id: created.id,
        description: null,
        payload: null,
        target: { http: { url: `${r.url}/hook`, method: 'PUT', headers: [{ name: 'X-Team', value: 'billing' }] } },
        workload: 'CPU_BOUND',
        timeoutSeconds: 10,
        overlapPolicy: 'SKIP',
        misfirePolicy: 'SKIP',
      });
      expect(changed).toMatchObject({
        name: 'Report v2',
        description: null,
        payload: null,
        target: { __typename: 'HttpTarget', url: `${r.url}/hook`, method: 'PUT', headers: [{ name: 'X-Team', value: 'billing' }] },
        workload: 'CPU_BOUND',
        timeoutSeconds: 10,
        overlapPolicy: 'SKIP',
        misfirePolicy: 'SKIP',
        status: 'ACTIVE',
        schedule: created.schedule,
        nextRunAt: created.nextRunAt,
      });
      expect(await jobVersion(created.id)).toBe(3);

      // Values equal to the current ones (the schedule included) change nothing: no write, no new nextRunAt.
      const same = await update({ id: created.id, name: 'Report v2', schedule: { intervalSeconds: 3600 }, workload: 'CPU_BOUND' });
      expect(same).toEqual(changed);
      expect(await jobVersion(created.id)).toBe(3);
      expect(await readJob(created.id)).toEqual(changed);
    });

    describe('bad input is BAD_USER_INPUT naming the field, and writes nothing', () => {
      let job: Job;
      beforeAll(async () => {
        job = await create({ name: 'validated', description: 'keep me', schedule: { intervalSeconds: 3600 }, payload: { keep: true } });
      });

      const cases: [string, Record<string, unknown>, string][] = [
        ['a null name', { name: null }, 'name'],
        ['a blank name', { name: '   ' }, 'name'],
        ['a too long description', { description: 'x'.repeat(2001) }, 'description'],
        ['a null schedule', { schedule: null }, 'schedule'],
        ['a schedule without a kind', { schedule: {} }, 'schedule'],
        ['an invalid cron', { schedule: { cron: 'every day at noon' } }, 'schedule.cron'],
        ['a runAt in the past', { schedule: { runAt: '2001-01-01T00:00:00Z' } }, 'schedule.runAt'],
        ['a null target', { target: null }, 'target'],
        ['an unknown handler', { target: { handler: 'launch-rockets' } }, 'target.handler'],
        ['a non-http URL', { target: { http: { url: 'ftp://example.com/x' } } }, 'target.http.url'],
        ['a payload over 256 KiB', { payload: { blob: 'x'.repeat(300 * 1024) } }, 'payload'],
        ['a null workload', { workload: null }, 'workload'],
        ['a null timeout', { timeoutSeconds: null }, 'timeoutSeconds'],
        ['a timeout of 0', { timeoutSeconds: 0 }, 'timeoutSeconds'],
        ['a null retry policy', { retryPolicy: null }, 'retryPolicy'],
        ['0 attempts', { retryPolicy: { maxAttempts: 0 } }, 'retryPolicy.maxAttempts'],
        [
          'an initial backoff above the current maximum',
          { retryPolicy: { initialBackoffSeconds: 301 } },
          'retryPolicy.initialBackoffSeconds',
        ],
        ['a null overlap policy', { overlapPolicy: null }, 'overlapPolicy'],
        ['a null misfire policy', { misfirePolicy: null }, 'misfirePolicy'],
        ['a good name with a bad timeout', { name: 'renamed', timeoutSeconds: -1 }, 'timeoutSeconds'],
        ['a good schedule with a bad target', { schedule: { intervalSeconds: 5 }, target: {} }, 'target'],
      ];
      it.each(cases)('%s', async (_label, fields, field) => {
        const error = expectError(await gql(k.url, tokenA, UPDATE, { input: { id: job.id, ...fields } }), 'BAD_USER_INPUT');
        expect(error.extensions?.field).toBe(field);
        expect(error.message.length).toBeGreaterThan(10);
      });

      it('left the job as it was', async () => {
        expect(await readJob(job.id)).toEqual(job);
        expect(await jobVersion(job.id)).toBe(1);
        expect(await executionsOf(job.id)).toEqual([]);
      });
    });

    it('cancels the waiting executions of the old schedule, removes their queue entries and materialises the new one', async () => {
      const created = await create({ name: 'moved', schedule: { runAt: new Date(Date.now() + 25_000).toISOString() } });
      const [first] = await executionsOf(created.id);
      expect(first).toMatchObject({ status: 'QUEUED', trigger: 'SCHEDULE' });
      expect(await queueEntry(first.id)).toBeDefined();

      // A new one-off inside the look-ahead: the old occurrence is cancelled, the new one materialised at once.
      const runAt = new Date(Date.now() + 20_000).toISOString();
      const moved = await update({ id: created.id, schedule: { runAt } });
      expect(moved.schedule).toMatchObject({ kind: 'ONCE', runAt });
      const afterMove = await executionsOf(created.id);
      expect(afterMove.map((e) => [e.status, e.reason, e.scheduledFor])).toEqual([
        ['CANCELLED', 'schedule changed', created.schedule.runAt],
        ['QUEUED', null, runAt],
      ]);
      const second = afterMove[1];
      expect(await queueEntry(first.id)).toBeUndefined();
      expect(await queueEntry(second.id)).toBeDefined();
      expect(await eventOf(first.id, 'CANCELLED')).toMatchObject({ previousStatus: 'QUEUED', execution: { reason: 'schedule changed' } });

      // The one-off was materialised, so the job was COMPLETED; a new schedule makes it ACTIVE again.
      const before = Date.now();
      const hourly = await update({ id: created.id, schedule: { intervalSeconds: 3600 } });
      const after = Date.now();
      expect(hourly.status).toBe('ACTIVE');
      expect(Date.parse(hourly.nextRunAt!)).toBeGreaterThanOrEqual(before + HOUR_MS);
      expect(Date.parse(hourly.nextRunAt!)).toBeLessThanOrEqual(after + HOUR_MS);
      const final = await executionsOf(created.id);
      expect(final.map((e) => [e.id, e.status, e.reason])).toEqual([
        [first.id, 'CANCELLED', 'schedule changed'],
        [second.id, 'CANCELLED', 'schedule changed'],
      ]);
      expect(await queueEntry(second.id)).toBeUndefined();
      await eventOf(second.id, 'CANCELLED');
    });

    it('keeps a waiting occurrence that the new schedule shares', async () => {
      const startAt = new Date(Date.now() + 20_000).toISOString();
      const created = await create({ name: 'shared', schedule: { intervalSeconds: 3600, startAt } });
      const [waiting] = await executionsOf(created.id);
      expect(waiting).toMatchObject({ status: 'QUEUED', scheduledFor: startAt });

      const slower = await update({ id: created.id, schedule: { intervalSeconds: 7200, startAt } });
      // The shared occurrence has not started: it is still the next run.
      expect(slower.nextRunAt).toBe(startAt);
      expect(await executionsOf(created.id)).toEqual([waiting]);
      expect(await queueEntry(waiting.id)).toBeDefined();
      await gqlOk(k.url, tokenA, DELETE, { id: created.id });
    });

    it('answers concurrent updates with the update or CONFLICT, never losing one that landed', async () => {
      const job = await create({ name: 'contended', schedule: { intervalSeconds: 3600 } });
      const results = await Promise.all(
        [0, 1, 2, 3, 4, 5].map((i) => gql(k.url, tokenA, UPDATE, { input: { id: job.id, retryPolicy: { maxAttempts: 10 + i } } })),
      );
      const landed = results.filter((r) => !r.errors);
      for (const r of results.filter((r) => r.errors)) expect(r.errors?.[0].extensions?.code).toBe('CONFLICT');
      expect(landed.length).toBeGreaterThanOrEqual(1);
      const final = (await readJob(job.id))!.retryPolicy.maxAttempts;
      expect(landed.map((r) => r.data!.updateJob.job.retryPolicy.maxAttempts)).toContain(final);
      // FerretDB 1.24 evaluates an update's filter when it reads, then rewrites the document by _id alone, so
      // two compare-and-sets on one version can both succeed there (see the changeJob tests for the logic itself).
      if (!ferretdb) expect(await jobVersion(job.id)).toBe(1 + landed.length);
    });

    describe('changeJob: compare-and-set on the version, one retry, then CONFLICT', () => {
      /** A real JobStore that lets another writer change the job right after each of its first `times` reads. */
      class Interleaved extends JobStore {
        constructor(
          private times: number,
          private readonly interfere: (job: JobDoc) => Promise<unknown>,
        ) {
          super(mongo.db(k.dbName), tenantA);
        }
        override async findById(id: ObjectId): Promise<JobDoc | null> {
          const doc = await super.findById(id);
          if (doc && this.times-- > 0) await this.interfere(doc);
          return doc;
        }
      }
      const other = () => new JobStore(mongo.db(k.dbName), tenantA);

      it('decides again on the job as the other writer left it, and keeps both changes', async () => {
        const job = await create({ name: 'raced', schedule: { intervalSeconds: 3600 } });
        const id = fromGlobalId(job.id, 'Job')!.id;
        const store = new Interleaved(1, (doc) => other().updateIfVersion(id, doc.version, { description: 'by the other writer' }));
        const seen: (string | null)[] = [];
        const { job: written, changed } = await changeJob({ jobs: store, scheduling: untouchedScheduling }, id, new Date(), (current) => {
          seen.push(current.description);
          return { name: 'by changeJob' };
        });
        expect(changed).toBe(true);
        expect(seen).toEqual([null, 'by the other writer']);
        expect(written).toMatchObject({ name: 'by changeJob', description: 'by the other writer', version: 3 });
      });

      it('gives up with CONFLICT when the job changes under it twice, writing nothing', async () => {
        const job = await create({ name: 'hot', schedule: { intervalSeconds: 3600 } });
        const id = fromGlobalId(job.id, 'Job')!.id;
        let n = 0;
        const store = new Interleaved(2, (doc) => other().updateIfVersion(id, doc.version, { description: `other ${++n}` }));
        await expect(
          changeJob({ jobs: store, scheduling: untouchedScheduling }, id, new Date(), () => ({ name: 'never written' })),
        ).rejects.toBeInstanceOf(ConflictError);
        expect(await other().findById(id)).toMatchObject({ name: 'hot', description: 'other 2', version: 3 });
      });

      it('writes nothing when there is nothing to change', async () => {
        const job = await create({ name: 'calm', schedule: { intervalSeconds: 3600 } });
        const id = fromGlobalId(job.id, 'Job')!.id;
        const { changed } = await changeJob({ jobs: other(), scheduling: untouchedScheduling }, id, new Date(), () => null);
        expect(changed).toBe(false);
        expect(await jobVersion(job.id)).toBe(1);
      });
    });
  });

  describe('nextRunAt', () => {
    /** The job's first waiting execution's time: the next run, as the executions show it. */
    async function firstWaiting(jobId: string): Promise<string | undefined> {
      const waiting = (await executionsOf(jobId)).filter((e) => e.status === 'QUEUED').map((e) => e.scheduledFor);
      return waiting.sort()[0];
    }

    it('is the first occurrence that has not started, not the materialisation cursor, after create, update and resume', async () => {
      // Every 10 s: the look-ahead materialises three occurrences at once; nextRunAt is the first.
      const created = await create({ name: 'every-10s', schedule: { intervalSeconds: 10 } });
      const first = await firstWaiting(created.id);
      expect(first).toBeDefined();
      expect(created.nextRunAt).toBe(first);
      expect(Date.parse(created.nextRunAt!) - Date.parse(created.createdAt)).toBe(10_000);
      expect((await readJob(created.id))!.nextRunAt).toBe(first);

      // updatedAt is moved on by the materialisation that follows, so the request's own time bounds it.
      let before = Date.now();
      const updated = await update({ id: created.id, schedule: { intervalSeconds: 7 } });
      expect(updated.nextRunAt).toBe(await firstWaiting(created.id));
      expect(Date.parse(updated.nextRunAt!)).toBeGreaterThanOrEqual(before + 7_000);
      expect(Date.parse(updated.nextRunAt!)).toBeLessThanOrEqual(Date.now() + 7_000);

      expect((await gqlOk(k.url, tokenA, PAUSE, { id: created.id })).pauseJob.job.nextRunAt).toBeNull();
      before = Date.now();
      const resumed = (await gqlOk(k.url, tokenA, RESUME, { id: created.id })).resumeJob.job;
      expect(resumed.nextRunAt).toBe(await firstWaiting(created.id));
      expect(Date.parse(resumed.nextRunAt)).toBeGreaterThanOrEqual(before + 7_000);
      expect(Date.parse(resumed.nextRunAt)).toBeLessThanOrEqual(Date.now() + 7_000);

      // Once that occurrence has run, the next one is shown, without any write to the job.
      const ran = resumed.nextRunAt!;
      await waitUntil(
        async () => (await executionsOf(created.id)).find((e) => e.scheduledFor === ran && e.status === 'SUCCEEDED'),
        15_000,
        'the first occurrence to run',
      );
      expect((await readJob(created.id))!.nextRunAt).toBe(new Date(Date.parse(ran) + 7_000).toISOString());
      await gqlOk(k.url, tokenA, DELETE, { id: created.id });
    });

    it('createJob answers the job as stored after its near-term materialisation (it is not read back)', async () => {
      const inputs = [
        { name: 'answer-interval', schedule: { intervalSeconds: 10 } },
        { name: 'answer-once', schedule: { runAt: new Date(Date.now() + 20_000).toISOString() } },
        { name: 'answer-cron', schedule: { cron: '*/5 * * * * *', timezone: 'Asia/Tokyo' } },
      ];
      for (const input of inputs) {
        const created = await create(input);
        expect(created).toEqual(await readJob(created.id));
        await gqlOk(k.url, tokenA, DELETE, { id: created.id });
      }
    });

    it('cron and one-off: the next occurrence, though already materialised', async () => {
      const cron = await create({ name: 'every-5s', schedule: { cron: '*/5 * * * * *', timezone: 'Europe/Paris' } });
      expect(cron.nextRunAt).toBe(await firstWaiting(cron.id));
      expect(Date.parse(cron.nextRunAt!) % 5000).toBe(0);
      expect(Date.parse(cron.nextRunAt!) - Date.parse(cron.createdAt)).toBeLessThanOrEqual(5000);

      const runAt = new Date(Date.now() + 20_000).toISOString();
      const once = await create({ name: 'once-later', schedule: { runAt } });
      expect(once).toMatchObject({ status: 'COMPLETED', nextRunAt: runAt });
      await gqlOk(k.url, tokenA, DELETE, { id: cron.id });
      await gqlOk(k.url, tokenA, DELETE, { id: once.id });
    });
  });

  describe('pauseJob and resumeJob', () => {
    it('pause clears nextRunAt, resume recomputes it from now; repeating either is a no-op', async () => {
      const job = await create({ name: 'hourly', schedule: { intervalSeconds: 3600 } });
      const paused = (await gqlOk(k.url, tokenA, PAUSE, { id: job.id })).pauseJob.job;
      expect(paused).toMatchObject({ status: 'PAUSED', nextRunAt: null });
      expect((await gqlOk(k.url, tokenA, PAUSE, { id: job.id })).pauseJob.job).toEqual(paused);

      const before = Date.now();
      const resumed = (await gqlOk(k.url, tokenA, RESUME, { id: job.id })).resumeJob.job;
      const after = Date.now();
      expect(resumed.status).toBe('ACTIVE');
      expect(Date.parse(resumed.nextRunAt)).toBeGreaterThanOrEqual(before + HOUR_MS);
      expect(Date.parse(resumed.nextRunAt)).toBeLessThanOrEqual(after + HOUR_MS);
      expect((await gqlOk(k.url, tokenA, RESUME, { id: job.id })).resumeJob.job).toEqual(resumed);
      expect(await jobVersion(job.id)).toBe(3);
    });

    it('refuses to pause or resume a COMPLETED job (CONFLICT)', async () => {
      // A one-off due now is materialised at creation, which completes its schedule.
      const job = await create({ name: 'done', schedule: { runAt: new Date().toISOString() } });
      expect(job.status).toBe('COMPLETED');
      expect(expectError(await gql(k.url, tokenA, PAUSE, { id: job.id }), 'CONFLICT').message).toMatch(/COMPLETED/);
      const error = expectError(await gql(k.url, tokenA, RESUME, { id: job.id }), 'CONFLICT');
      expect(error.message).toMatch(/COMPLETED.*updateJob/);
      expect(await readJob(job.id)).toMatchObject({ status: 'COMPLETED', updatedAt: job.updatedAt });
    });

    it('pause cancels the waiting executions; resume puts back an occurrence the pause cancelled', async () => {
      const startAt = new Date(Date.now() + 20_000).toISOString();
      const job = await create({ name: 'held', schedule: { intervalSeconds: 3600, startAt } });
      const [waiting] = await executionsOf(job.id);
      expect(waiting.status).toBe('QUEUED');

      await gqlOk(k.url, tokenA, PAUSE, { id: job.id });
      expect((await executionsOf(job.id)).map((e) => [e.id, e.status, e.reason])).toEqual([[waiting.id, 'CANCELLED', 'job paused']]);
      expect(await queueEntry(waiting.id)).toBeUndefined();
      expect(await eventOf(waiting.id, 'CANCELLED')).toMatchObject({ previousStatus: 'QUEUED' });

      // Its first occurrence is still startAt, which the cancelled execution holds: it comes back, not lost.
      const resumed = (await gqlOk(k.url, tokenA, RESUME, { id: job.id })).resumeJob.job;
      expect(resumed).toMatchObject({ status: 'ACTIVE', nextRunAt: startAt });
      expect((await executionsOf(job.id)).map((e) => [e.id, e.status, e.reason, e.scheduledFor])).toEqual([
        [waiting.id, 'QUEUED', null, startAt],
      ]);
      expect(await queueEntry(waiting.id)).toBeDefined();

      // deleteJob: the job goes, its history stays with job: null, waiting executions are cancelled.
      const deleted = (await gqlOk(k.url, tokenA, DELETE, { id: job.id })).deleteJob;
      expect(deleted).toEqual({ deletedJobId: job.id });
      expect(await readJob(job.id)).toBeNull();
      expect(await executionsOf(job.id)).toEqual([
        expect.objectContaining({ id: waiting.id, status: 'CANCELLED', reason: 'job deleted', job: null }),
      ]);
      expect(await queueEntry(waiting.id)).toBeUndefined();
    });

    it('runs no burst of occurrences missed while paused, and still runs manual triggers of a paused job', async () => {
      const job = await create({
        name: 'every-second',
        schedule: { intervalSeconds: 1 },
        target: { handler: 'sleep' },
        payload: { ms: 1 },
      });
      const pauseStart = Date.now();
      await gqlOk(k.url, tokenA, PAUSE, { id: job.id });
      const pauseEnd = Date.now();
      const beforePause = await executionsOf(job.id);
      expect(beforePause.filter((e) => e.status === 'CANCELLED').length).toBeGreaterThanOrEqual(25);

      // While paused (and while occurrences of the old schedule pass by), a manual trigger runs.
      const manual = (await gqlOk(k.url, tokenA, TRIGGER, { id: job.id, payload: { ms: 1500 } })).triggerJob.execution;
      expect(manual).toMatchObject({ trigger: 'MANUAL', status: 'QUEUED', job: { id: job.id } });
      await eventOf(manual.id, 'SUCCEEDED');
      expect((await readJob(job.id))!).toMatchObject({ status: 'PAUSED', nextRunAt: null });

      const resumeStart = Date.now();
      const resumed = (await gqlOk(k.url, tokenA, RESUME, { id: job.id })).resumeJob.job;
      expect(resumed.status).toBe('ACTIVE');
      const executions = await executionsOf(job.id);
      await gqlOk(k.url, tokenA, DELETE, { id: job.id });

      expect(executions.find((e) => e.id === manual.id)).toMatchObject({ status: 'SUCCEEDED', result: { sleptMs: 1500 } });
      const scheduled = executions.filter((e) => e.trigger === 'SCHEDULE');
      const at = (e: Execution) => Date.parse(e.scheduledFor);
      for (const e of scheduled) {
        if (e.status === 'CANCELLED') {
          // Cancelled by the pause, or by a sweep that was materialising the job as the pause landed (materialise.ts).
          expect(['job paused', 'the job was paused or deleted while this occurrence was being materialised']).toContain(e.reason);
          expect(Date.parse(e.createdAt)).toBeLessThanOrEqual(pauseEnd);
        } else {
          // Materialised after the resume, or started before the pause took effect.
          expect(at(e) >= resumeStart || at(e) <= pauseEnd).toBe(true);
        }
      }
      // Nothing due while the job was paused ran.
      expect(scheduled.filter((e) => e.status !== 'CANCELLED' && at(e) > pauseStart && at(e) < resumeStart)).toEqual([]);
      expect(scheduled.filter((e) => e.status !== 'CANCELLED' && at(e) >= resumeStart).length).toBeGreaterThanOrEqual(1);
    });
  });

  describe('deleteJob', () => {
    it('cancels a RETRYING execution and removes its retry entry from the queue', async () => {
      const r = await receiver;
      const job = await create({
        name: 'failing',
        schedule: { intervalSeconds: 3600 },
        target: { http: { url: `${r.url}/fail` } },
        retryPolicy: { maxAttempts: 3, initialBackoffSeconds: 60, maxBackoffSeconds: 60 },
      });
      const execution = (await gqlOk(k.url, tokenA, TRIGGER, { id: job.id })).triggerJob.execution;
      await eventOf(execution.id, 'RETRYING');
      // The worker enqueues the retry right after publishing RETRYING.
      await waitUntil(() => queueEntry(execution.id, 1), 5000, 'the retry entry');

      expect((await gqlOk(k.url, tokenA, DELETE, { id: job.id })).deleteJob.deletedJobId).toBe(job.id);
      expect(await eventOf(execution.id, 'CANCELLED')).toMatchObject({ previousStatus: 'RETRYING', execution: { reason: 'job deleted' } });
      expect(await queueEntry(execution.id, 1)).toBeUndefined();
      expect(await executionsOf(job.id)).toEqual([
        expect.objectContaining({ id: execution.id, status: 'CANCELLED', reason: 'job deleted', attempt: 1, job: null }),
      ]);
    });

    it('is NOT_FOUND the second time, and so is every other mutation of the deleted job', async () => {
      const job = await create({ name: 'gone', schedule: { intervalSeconds: 3600 } });
      await gqlOk(k.url, tokenA, DELETE, { id: job.id });
      const message = `Job ${job.id} was not found`;
      for (const [query, variables] of mutationsOf(job.id)) {
        expect(expectError(await gql(k.url, tokenA, query, variables), 'NOT_FOUND').message).toBe(message);
      }
    });
  });

  describe('triggerJob', () => {
    it('runs a MANUAL execution now with the overriding payload, or the job payload, leaving the schedule alone', async () => {
      const job = await create({ name: 'sleeper', schedule: { intervalSeconds: 3600 }, target: { handler: 'sleep' }, payload: { ms: 5 } });
      const before = Date.now();
      const overridden = (await gqlOk(k.url, tokenA, TRIGGER, { id: job.id, payload: { ms: 150 } })).triggerJob.execution;
      expect(overridden).toMatchObject({ trigger: 'MANUAL', status: 'QUEUED', jobId: job.id, job: { id: job.id } });
      expect(Date.parse(overridden.scheduledFor)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(overridden.scheduledFor)).toBeLessThanOrEqual(Date.now());
      const plain = (await gqlOk(k.url, tokenA, TRIGGER, { id: job.id })).triggerJob.execution;

      expect(await eventOf(overridden.id, 'QUEUED')).toMatchObject({ previousStatus: 'SCHEDULED' });
      await eventOf(overridden.id, 'SUCCEEDED');
      await eventOf(plain.id, 'SUCCEEDED');
      const executions = await executionsOf(job.id);
      expect(executions.find((e) => e.id === overridden.id)).toMatchObject({ status: 'SUCCEEDED', result: { sleptMs: 150 } });
      expect(executions.find((e) => e.id === plain.id)).toMatchObject({ status: 'SUCCEEDED', result: { sleptMs: 5 } });
      expect(executions).toHaveLength(2);

      const doc = await mongo
        .db(k.dbName)
        .collection('executions')
        .findOne({ _id: fromGlobalId(overridden.id, 'Execution')!.id });
      expect(doc?.occurrenceKey).toBe(`manual:${doc?._id.toHexString()}`);
      expect(await readJob(job.id)).toMatchObject({ nextRunAt: job.nextRunAt, status: 'ACTIVE', updatedAt: job.updatedAt });
    });

    it('rejects a payload over the size limit and creates nothing', async () => {
      const job = await create({ name: 'big', schedule: { intervalSeconds: 3600 } });
      const error = expectError(
        await gql(k.url, tokenA, TRIGGER, { id: job.id, payload: { blob: 'x'.repeat(300 * 1024) } }),
        'BAD_USER_INPUT',
      );
      expect(error.extensions?.field).toBe('payload');
      expect(await executionsOf(job.id)).toEqual([]);
    });
  });

  describe('ids of other tenants, malformed ids and roles', () => {
    it("answers NOT_FOUND for another tenant's job, exactly as for a missing one, and changes nothing", async () => {
      const job = await create({ name: 'private', schedule: { intervalSeconds: 3600 }, payload: { secret: 1 } });
      const missing = toGlobalId('Job', new ObjectId());
      const execution = toGlobalId('Execution', new ObjectId());
      for (const [query, variables] of mutationsOf(job.id)) {
        const foreign = expectError(await gql(k.url, tokenB, query, variables), 'NOT_FOUND');
        const absent = expectError(await gql(k.url, tokenB, query, { ...variables, ...idOf(variables, missing) }), 'NOT_FOUND');
        expect(foreign.message.replace(job.id, '<id>')).toBe(absent.message.replace(missing, '<id>'));
        expect(foreign.extensions).toEqual(absent.extensions);
        for (const bad of ['not-an-id', execution, '']) {
          const malformed = expectError(await gql(k.url, tokenA, query, { ...variables, ...idOf(variables, bad) }), 'NOT_FOUND');
          expect(malformed.message).toBe(`Job ${bad} was not found`);
        }
      }
      expect(await readJob(job.id)).toEqual(job);
      expect(await jobVersion(job.id)).toBe(1);
      expect(await executionsOf(job.id)).toEqual([]);
      expect(await readJob(job.id, tokenB)).toBeNull();
    });

    it('lets a VIEWER change nothing (FORBIDDEN)', async () => {
      const job = await create({ name: 'watched', schedule: { intervalSeconds: 3600 } });
      const viewer = tokenFor(tenantA, 'viewer');
      for (const [query, variables] of mutationsOf(job.id)) {
        expectError(await gql(k.url, viewer, query, variables), 'FORBIDDEN');
      }
      expect(await readJob(job.id)).toEqual(job);
    });
  });
});

/** Every lifecycle mutation of job `id`, with valid arguments otherwise. */
function mutationsOf(id: string): [string, Record<string, unknown>][] {
  return [
    [UPDATE, { input: { id, name: 'hijacked' } }],
    [PAUSE, { id }],
    [RESUME, { id }],
    [TRIGGER, { id, payload: { ms: 1 } }],
    [DELETE, { id }],
  ];
}

function idOf(variables: Record<string, unknown>, id: string): Record<string, unknown> {
  return 'input' in variables ? { input: { ...(variables.input as object), id } } : { id };
}
