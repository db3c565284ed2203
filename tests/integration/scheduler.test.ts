// Covers: src/scheduler/jobPass.ts, src/transitions/insertOccurrences.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Redis as RedisClient } from 'ioredis';
import { Redis } from 'ioredis';
import type { Db } from 'mongodb';
import { LeaderLease } from '../../src/scheduler/leaderLease.js';
import { materialise, type MaterialiseDeps } from '../../src/scheduler/materialise.js';
import type { JobDoc } from '../../src/domain/job.js';
import type { ExecutionDoc } from '../../src/domain/execution.js';
import { skippedOccurrences } from '../../src/domain/skippedOccurrences.js';
import type { SchedulerStore } from '../../src/store/schedulerStore.js';
import { JobStore } from '../../src/store/jobStore.js';
import { ExecutionStore } from '../../src/store/executionStore.js';
import { jobScheduling } from '../../src/scheduler/jobScheduling.js';
import type { JobDeps } from '../../src/jobs/jobDeps.js';
import { pauseJob } from '../../src/jobs/pauseJob.js';
import { resumeJob } from '../../src/jobs/resumeJob.js';
import { dropTestState, startTestKairos, tokenFor, uniqueName } from '../support/harness.js';
import { gqlOk } from '../support/graphqlClient.js';
import { EventCollector, wsClient } from '../support/subscriptions.js';
import { REDIS_URL } from '../support/env.js';
import { jobDoc, materialiseFixture } from '../support/fixtures.js';
import { QueueShards } from '../../src/queue/executionQueues.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** Resolves when `check()` holds, polling Redis-side state that has no event to wait on. */
async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const job = (nextRunAt: Date) =>
  jobDoc(nextRunAt, { schedule: { kind: 'INTERVAL', intervalSeconds: 10, timezone: 'UTC', jitterSeconds: 0 } });

describe('leader lease', () => {
  const prefix = uniqueName('lease');
  const redis = new Redis(REDIS_URL);
  const leases: LeaderLease[] = [];
  afterAll(async () => {
    await Promise.all(leases.map((l) => l.stop()));
    await dropTestState(prefix, prefix);
    await redis.quit();
  });

  it('has one holder at a time, hands over at once on release, and fences each holder with a larger token', async () => {
    const events: string[] = [];
    const make = (id: string) => {
      const lease = new LeaderLease(redis, {
        candidateId: id,
        prefix,
        ttlMs: 1000,
        renewEveryMs: 50,
        onAcquired: (token) => events.push(`${id}+${token}`),
        onLost: () => events.push(`${id}-`),
      });
      leases.push(lease);
      return lease;
    };
    const a = make('a');
    a.start();
    await until(() => a.isLeader, 2000, 'a to lead');
    const b = make('b');
    b.start();
    await sleep(300);
    expect(b.isLeader).toBe(false);
    const first = a.fencingToken;
    const released = Date.now();
    await a.stop();
    await until(() => b.isLeader, 2000, 'b to lead');
    // Released, not expired: the standby takes over well before the 1 s TTL.
    expect(Date.now() - released).toBeLessThan(800);
    expect(b.fencingToken).toBeGreaterThan(first);
    expect(events).toEqual([`a+${first}`, 'a-', `b+${b.fencingToken}`]);
  });
});

describe('materialise', () => {
  let fixture: Awaited<ReturnType<typeof materialiseFixture>>;
  let db: Db;
  let redis: RedisClient;
  let deps: MaterialiseDeps;
  const name = uniqueName('mat');
  beforeAll(async () => {
    fixture = await materialiseFixture(name);
    ({ db, redis, deps } = fixture);
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it('never doubles an occurrence when two leaders materialise the same job at once, and advances the schedule cursor once', async () => {
    const now = new Date(Date.UTC(2030, 0, 1, 0, 0, 0));
    const doc = job(now);
    await db.collection<JobDoc>('jobs').insertOne(doc);
    const horizon = new Date(now.getTime() + 30_000);
    // Two "leaders" with stale views of the same job: both try every step.
    await Promise.all([materialise(deps, [doc], now, horizon, 1), materialise(deps, [doc], now, horizon, 2)]);
    const executions = await db.collection('executions').find({ jobId: doc._id }).sort({ scheduledFor: 1 }).toArray();
    expect(executions.map((e) => e.scheduledFor.toISOString())).toEqual([
      '2030-01-01T00:00:00.000Z',
      '2030-01-01T00:00:10.000Z',
      '2030-01-01T00:00:20.000Z',
      '2030-01-01T00:00:30.000Z',
    ]);
    expect(executions.every((e) => e.status === 'QUEUED')).toBe(true);
    const stored = await db.collection<JobDoc>('jobs').findOne({ _id: doc._id });
    expect(stored?.scheduleCursor?.toISOString()).toBe('2030-01-01T00:00:40.000Z');
    // Each execution is in the queue once, delayed until its time (queue entry id = execution id).
    const ioQueue = `${name}:${new QueueShards(1).name('IO_BOUND', 0)}`;
    const io = await redis.keys(`${ioQueue}:*`);
    const entries = io.filter((key) => /:[0-9a-f]{24}$/.test(key));
    expect(entries.sort()).toEqual(executions.map((e) => `${ioQueue}:${e._id.toHexString()}`).sort());

    // A later pass from the stale view changes nothing: the occurrences exist and the CAS on the cursor fails.
    await materialise(deps, [doc], now, horizon, 1);
    expect(await db.collection('executions').countDocuments({ jobId: doc._id })).toBe(4);
    expect((await db.collection<JobDoc>('jobs').findOne({ _id: doc._id }))?.scheduleCursor?.toISOString()).toBe('2030-01-01T00:00:40.000Z');
  });
});

describe('materialise racing a job change', () => {
  let fixture: Awaited<ReturnType<typeof materialiseFixture>>;
  beforeAll(async () => {
    fixture = await materialiseFixture(uniqueName('race'));
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it('cancels what it inserted for a job that was paused or changed after the pass read it', async () => {
    const now = new Date(Date.now() + 60_000);
    const stale = job(now);
    // The stored job has moved on (paused: version 2, no cursor) since the pass read version 1.
    await fixture.db.collection<JobDoc>('jobs').insertOne({ ...stale, status: 'PAUSED', scheduleCursor: null, version: 2 });
    await materialise(fixture.deps, [stale], now, new Date(now.getTime() + 15_000), 1);
    const executions = await fixture.db.collection('executions').find({ jobId: stale._id }).toArray();
    expect(executions).toHaveLength(2);
    for (const e of executions) {
      expect(e).toMatchObject({
        status: 'CANCELLED',
        reason: 'the job was paused or deleted while this occurrence was being materialised',
      });
      expect(
        await fixture.redis.exists(`${fixture.db.databaseName}:${new QueueShards(1).name('IO_BOUND', 0)}:${e._id.toHexString()}`),
      ).toBe(0);
    }
    expect(await fixture.db.collection<JobDoc>('jobs').findOne({ _id: stale._id })).toMatchObject({
      status: 'PAUSED',
      scheduleCursor: null,
    });
  });
});

describe('materialise past the budget', () => {
  let fixture: Awaited<ReturnType<typeof materialiseFixture>>;
  beforeAll(async () => {
    fixture = await materialiseFixture(uniqueName('skips'));
  });
  afterAll(async () => {
    await fixture?.close();
  });

  const everySecond = (cursor: Date, overrides: Partial<JobDoc> = {}) =>
    jobDoc(cursor, { schedule: { kind: 'INTERVAL', intervalSeconds: 1, timezone: 'UTC', jitterSeconds: 0 }, ...overrides });
  /** A budget that lets `allowed` occurrences of a pass run. */
  const allowing = (allowed: number, store = fixture.deps.store): MaterialiseDeps => ({
    ...fixture.deps,
    store,
    budget: { charge: async (_tenantId: string, wanted: number) => ({ allowed: Math.min(allowed, wanted), perMinute: 5 }) },
  });
  async function recorded(job: JobDoc) {
    const docs = await fixture.db.collection<ExecutionDoc>('executions').find({ jobId: job._id }).toArray();
    const instants = docs
      .flatMap((d) => (d.skippedCount ? skippedOccurrences(job.schedule, d) : [new Date(d.occurrenceKey.split('@')[1])]))
      .map((d) => d.getTime())
      .sort((a, b) => a - b);
    return { docs, instants, ran: docs.filter((d) => d.status === 'QUEUED').length, records: docs.filter((d) => d.status === 'SKIPPED') };
  }
  const seconds = (from: Date, count: number) => Array.from({ length: count }, (_, i) => from.getTime() + i * 1000);

  it('two leaders with different budgets left: one decides, the other repeats its decisions, each occurrence once', async () => {
    const now = new Date(Date.UTC(2031, 0, 1));
    const job = everySecond(now);
    await fixture.db.collection<JobDoc>('jobs').insertOne(job);
    const horizon = new Date(now.getTime() + 20_000);
    await Promise.all([materialise(allowing(3), [job], now, horizon, 1), materialise(allowing(8), [job], now, horizon, 2)]);
    const after = await recorded(job);
    expect(after.instants).toEqual(seconds(now, 21));
    expect([3, 8]).toContain(after.ran);
    expect(after.records).toHaveLength(1);
    expect(after.records[0]).toMatchObject({ skippedCount: 21 - after.ran, scheduledFor: new Date(now.getTime() + after.ran * 1000) });

    // A third pass from the same stale view, with yet another budget, changes nothing.
    await materialise(allowing(0), [job], now, horizon, 3);
    expect((await recorded(job)).docs).toHaveLength(after.docs.length);
  });

  it("a pass repeated after its leader died between the head and the rest completes the first pass's decisions", async () => {
    const now = new Date(Date.UTC(2031, 0, 2));
    const job = everySecond(now);
    await fixture.db.collection<JobDoc>('jobs').insertOne(job);
    const horizon = new Date(now.getTime() + 20_000);
    let inserts = 0;
    const dying = Object.create(fixture.deps.store) as SchedulerStore;
    dying.insertExecutions = async (docs) => {
      if (++inserts > 1) throw new Error('the leader died');
      return fixture.deps.store.insertExecutions(docs);
    };
    await expect(materialise(allowing(3, dying), [job], now, horizon, 1)).rejects.toThrow('the leader died');
    expect((await recorded(job)).docs).toHaveLength(1);

    // The next leader has budget for all of them, later: the first pass's split stands.
    await materialise(allowing(100), [job], new Date(now.getTime() + 5000), new Date(now.getTime() + 40_000), 2);
    const after = await recorded(job);
    expect(after.instants).toEqual(seconds(now, 21));
    expect(after.ran).toBe(3);
    expect(after.records.map((r) => r.skippedCount)).toEqual([18]);
    expect((await fixture.db.collection<JobDoc>('jobs').findOne({ _id: job._id }))?.scheduleCursor).toEqual(
      new Date(now.getTime() + 21_000),
    );
  });

  it('a job paused and resumed onto occurrences recorded before: records cut back, none recorded twice', async () => {
    const now = new Date(Date.UTC(2031, 0, 4));
    const at = (s: number) => new Date(now.getTime() + s * 1000);
    // A cron, so that the resumed schedule has the same instants as before (an interval restarts from the resume).
    const job = jobDoc(now, { tenantId: 't4', schedule: { kind: 'CRON', cron: '* * * * * *', timezone: 'UTC', jitterSeconds: 0 } });
    await fixture.db.collection<JobDoc>('jobs').insertOne(job);
    const stored = async () => (await fixture.db.collection<JobDoc>('jobs').findOne({ _id: job._id }))!;
    // Two passes before the pause: of [0, 10] 3 run and 8 are skipped; of [11, 20] 5 run and 5 are skipped.
    await materialise(allowing(3), [job], now, at(10), 1);
    await materialise(allowing(5), [await stored()], at(1), at(20), 1);
    const deps = {
      ...fixture.deps,
      jobs: new JobStore(fixture.db, 't4'),
      executions: new ExecutionStore(fixture.db, 't4'),
      scheduling: jobScheduling(allowing(0), { lookAheadMs: 30_000 }),
      // The change history is not what this test looks at.
      changes: { record: async () => undefined },
    } as unknown as JobDeps;
    await pauseJob(deps, job._id, at(4));
    // Resumed at +4.5 s with the budget spent: from +5 s, between executions of the passes before, it
    // materialises the look-ahead at once (to +35 s), then the sweep goes on.
    const resumedAt = new Date(at(4).getTime() + 500);
    await resumeJob(deps, job._id, resumedAt);
    const resumed = await stored();
    expect(resumed).toMatchObject({ rescheduledAt: resumedAt, scheduleCursor: at(35) });
    await materialise(allowing(0), [resumed], at(8), at(60), 2);

    const docs = await fixture.db.collection<ExecutionDoc>('executions').find({ jobId: job._id }).toArray();
    const nominal = (d: ExecutionDoc) => new Date(d.occurrenceKey.split('@')[1]);
    const instants = docs.flatMap((d) => (d.skippedCount ? skippedOccurrences(job.schedule, d) : [nominal(d)])).map((d) => d.getTime());
    expect(instants.sort((a, b) => a - b)).toEqual(seconds(now, 61));
    const statusAt = (s: number) =>
      docs.filter((d) =>
        (d.skippedCount ? skippedOccurrences(job.schedule, d) : [nominal(d)]).some((i) => i.getTime() === at(s).getTime()),
      )[0];
    // Before the resume: the runs the pause cancelled, the record cut back to [3, 4].
    expect([0, 1, 2].map((s) => statusAt(s).status)).toEqual(Array(3).fill('CANCELLED'));
    expect(statusAt(3)).toMatchObject({ status: 'SKIPPED', skippedCount: 2, skippedUntil: at(4) });
    // After it: the runs the pause cancelled are revived and run, the rest recorded skipped one each.
    expect([11, 12, 13, 14, 15].map((s) => statusAt(s).status)).toEqual(Array(5).fill('QUEUED'));
    expect([5, 10, 16, 40, 60].map((s) => [statusAt(s).status, statusAt(s).skippedCount])).toEqual(Array(5).fill(['SKIPPED', 1]));
  });

  it('records skips one each where executions of an earlier pass may lie: after a reschedule, or beside an execution without a decision', async () => {
    const now = new Date(Date.UTC(2031, 0, 3));
    const horizon = new Date(now.getTime() + 20_000);
    const rescheduled = everySecond(now, { rescheduledAt: new Date(now.getTime() - 1000) });
    const longAgo = everySecond(now, { tenantId: 't2', rescheduledAt: new Date(now.getTime() - 3600_000) });
    const old = everySecond(now, { tenantId: 't3' });
    await fixture.db.collection<JobDoc>('jobs').insertMany([rescheduled, longAgo, old]);
    // An execution of `old`'s first occurrence written without a PassRecord (as before it existed), QUEUED.
    // (A pass of the first occurrence alone, which grouped nothing and so recorded no decisions; `old` stays the view read before it.)
    await materialise(allowing(100), [old], now, now, 0);
    expect(await fixture.db.collection<ExecutionDoc>('executions').findOne({ jobId: old._id })).not.toHaveProperty('pass');

    await materialise(allowing(2), [rescheduled, longAgo, old], now, horizon, 1);
    const a = await recorded(rescheduled);
    expect(a.instants).toEqual(seconds(now, 21));
    expect(a.records.map((r) => r.skippedCount)).toEqual(Array(19).fill(1));
    const b = await recorded(longAgo);
    expect(b.instants).toEqual(seconds(now, 21));
    expect(b.records.map((r) => r.skippedCount)).toEqual([19]);
    const c = await recorded(old);
    expect(c.instants).toEqual(seconds(now, 21));
    expect(c.records.every((r) => r.skippedCount === 1)).toBe(true);
  });
});

describe('the sweep', () => {
  it('materialises an occurrence beyond the create-time window once it comes within the look-ahead', async () => {
    const k = await startTestKairos('sweep', { env: { LOOK_AHEAD_MS: '1000' } });
    const tenant = uniqueName('sweep');
    const token = tokenFor(tenant, 'member');
    const client = wsClient(k.url, token);
    try {
      const events = new EventCollector<any>(client, `subscription { executionUpdated { status execution { scheduledFor startLagMs } } }`);
      const runAt = new Date(Date.now() + 3000);
      const created = await gqlOk(k.url, token, `mutation($i: CreateJobInput!) { createJob(input: $i) { job { id status nextRunAt } } }`, {
        i: { name: 'later', schedule: { runAt: runAt.toISOString() }, target: { handler: 'noop' } },
      });
      // Outside the 1 s window at creation: nothing materialised yet.
      expect(created.createJob.job).toMatchObject({ status: 'ACTIVE', nextRunAt: runAt.toISOString() });
      const done = await events.waitFor((items) => items.some((e) => e.executionUpdated.status === 'SUCCEEDED'), 10_000);
      const success = done.find((e) => e.executionUpdated.status === 'SUCCEEDED');
      expect(success.executionUpdated.execution.scheduledFor).toBe(runAt.toISOString());
      expect(success.executionUpdated.execution.startLagMs).toBeLessThan(1000);
      events.stop();
    } finally {
      await client.dispose();
      await k.stop();
    }
  });
});
