import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Redis as RedisClient } from 'ioredis';
import { Redis } from 'ioredis';
import type { Db } from 'mongodb';
import { LeaderLease } from '../../src/scheduler/leaderLease.js';
import { materialise, type MaterialiseDeps } from '../../src/scheduler/materialise.js';
import type { JobDoc } from '../../src/domain/job.js';
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
