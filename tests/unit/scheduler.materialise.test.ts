// Covers: src/scheduler/jobPass.ts, src/transitions/insertOccurrences.ts, src/transitions/queueInserted.ts,
// src/transitions/queueScheduled.ts, src/transitions/skipOccurrences.ts
import { describe, expect, it } from '@jest/globals';
import type { ObjectId } from 'mongodb';
import type { ExecutionDoc } from '../../src/domain/execution.js';
import type { JobDoc } from '../../src/domain/job.js';
import { skippedOccurrences } from '../../src/domain/skippedOccurrences.js';
import type { ExecutionEventMessage } from '../../src/events/executionEventBus.js';
import { createLogger } from '../../src/logger.js';
import type { QueueEntry } from '../../src/queue/queueEntry.js';
import { STALE_REASON } from '../../src/scheduler/changedUnderPass.js';
import { jobScheduling } from '../../src/scheduler/jobScheduling.js';
import { materialise, type PassDeps } from '../../src/scheduler/materialise.js';
import { occurrenceKey } from '../../src/scheduler/planOccurrences.js';
import type { JobAdvance } from '../../src/store/schedulerStore.js';
import type { SkipRewrite } from '../../src/store/skipRewrites.js';
import type { CancelledExecution, WaitingSelection } from '../../src/store/waitingCancels.js';
import { jobDoc } from '../support/fixtures.js';

/**
 * The materialiser (and the api's near-term materialisation through JobScheduling) against an
 * in-memory SchedulerStore, queue and event bus: no Redis, no MongoDB, fixed instants. The fake
 * store keeps the real one's compare-and-sets (unique occurrence key, status, version and cursor),
 * on shallow copies of what it is given.
 */
class FakeSchedulerStore {
  readonly jobs = new Map<string, JobDoc>();
  readonly executions = new Map<string, ExecutionDoc>();
  /** Inserts before this one fail (a leader dying mid-pass). */
  failInsertAfter = Infinity;
  private inserts = 0;

  constructor(jobs: JobDoc[] = []) {
    for (const job of jobs) this.jobs.set(job._id.toHexString(), { ...job });
  }

  all(): ExecutionDoc[] {
    return [...this.executions.values()];
  }

  async insertExecutions(
    docs: ExecutionDoc[],
  ): Promise<{ inserted: ExecutionDoc[]; existing: ExecutionDoc[]; leftBehind: ExecutionDoc[] }> {
    if (++this.inserts > this.failInsertAfter) throw new Error('the leader died');
    const inserted: ExecutionDoc[] = [];
    const existing: ExecutionDoc[] = [];
    for (const doc of docs) {
      const key = `${doc.tenantId}/${doc.occurrenceKey}`;
      const found = this.executions.get(key);
      if (found) existing.push({ ...found });
      else {
        this.executions.set(key, { ...doc });
        inserted.push(doc);
      }
    }
    return { inserted, existing, leftBehind: existing.filter((e) => e.status === 'SCHEDULED' || e.status === 'QUEUED') };
  }

  async markQueued(ids: ObjectId[], from: ExecutionDoc['status'], to: ExecutionDoc['status'], now: Date): Promise<void> {
    for (const e of this.byIds(ids)) if (e.status === from) Object.assign(e, { status: to, queuedAt: now, updatedAt: now });
  }

  async advanceJobs(advances: JobAdvance[], now: Date): Promise<boolean[] | null> {
    return advances.map((a) => {
      const job = this.jobs.get(a.jobId.toHexString());
      if (!job || job.version !== a.version || job.scheduleCursor?.getTime() !== a.expected?.getTime()) return false;
      Object.assign(job, { scheduleCursor: a.scheduleCursor, status: a.status, updatedAt: now, fencingToken: a.fencingToken });
      return true;
    });
  }

  async jobStates(ids: ObjectId[]): Promise<Map<string, Pick<JobDoc, 'version' | 'status' | 'scheduleCursor'>>> {
    const found = ids.map((id) => this.jobs.get(id.toHexString())).filter((j): j is JobDoc => !!j);
    return new Map(found.map((j) => [j._id.toHexString(), { version: j.version, status: j.status, scheduleCursor: j.scheduleCursor }]));
  }

  async cancelWaiting(selection: WaitingSelection, to: ExecutionDoc['status'], reason: string, now: Date): Promise<CancelledExecution[]> {
    const picked = this.byIds(selection.executionIds ?? []).filter((e) => selection.statuses.includes(e.status));
    return picked.map((e) => {
      const previousStatus = e.status;
      Object.assign(e, { status: to, reason, finishedAt: now, updatedAt: now });
      return { execution: e, previousStatus };
    });
  }

  readonly rewrites: SkipRewrite[] = [];
  async rewriteSkips(rewrites: readonly SkipRewrite[]): Promise<void> {
    this.rewrites.push(...rewrites);
  }

  async findJobsByIds(ids: ObjectId[]): Promise<JobDoc[]> {
    return ids.map((id) => this.jobs.get(id.toHexString())).filter((j): j is JobDoc => !!j);
  }

  private byIds(ids: readonly ObjectId[]): ExecutionDoc[] {
    const wanted = new Set(ids.map((id) => id.toHexString()));
    return this.all().filter((e) => wanted.has(e._id.toHexString()));
  }
}

/** Everything the pass sent out, in order: published events and queue adds and removals. */
type Sent = { event: ExecutionEventMessage } | { enqueued: QueueEntry } | { removed: string };

function passDeps(store: FakeSchedulerStore, allowed = Infinity) {
  const sent: Sent[] = [];
  const deps: PassDeps = {
    store,
    queues: {
      enqueue: async (entries) => void sent.push(...entries.map((enqueued) => ({ enqueued }))),
      remove: async (execution, status) => void sent.push({ removed: `${execution.executionId}/${status}` }),
    },
    events: { publish: async (events) => void sent.push(...events.map((event) => ({ event }))) },
    logger: createLogger({}, 'silent'),
    random: () => 0,
    budget: { charge: async (_tenantId, wanted) => ({ allowed: Math.min(allowed, wanted), perMinute: 5 }) },
  };
  const events = () => sent.flatMap((s) => ('event' in s ? [s.event] : []));
  const entries = () => sent.flatMap((s) => ('enqueued' in s ? [s.enqueued] : []));
  return { deps, sent, events, entries };
}

const T0 = new Date('2031-03-01T00:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const every = (seconds: number) => ({ kind: 'INTERVAL' as const, intervalSeconds: seconds, timezone: 'UTC', jitterSeconds: 0 });

describe('materialise', () => {
  it('inserts the occurrences QUEUED, announces each before it is enqueued at its time, and advances the cursor', async () => {
    const job = jobDoc(T0, { schedule: every(10) });
    const store = new FakeSchedulerStore([job]);
    const { deps, sent, events, entries } = passDeps(store);

    const result = await materialise(deps, [job], T0, at(30), 1);

    expect(store.all().map((e) => [e.occurrenceKey, e.status, e.scheduledFor, e.queuedAt])).toEqual(
      [0, 10, 20, 30].map((s) => [occurrenceKey(job._id, at(s)), 'QUEUED', at(s), T0]),
    );
    expect(events().map((e) => [e.previousStatus, e.status])).toEqual(
      Array(4)
        .fill([
          [null, 'SCHEDULED'],
          ['SCHEDULED', 'QUEUED'],
        ])
        .flat(),
    );
    // Each event carries the execution as inserted, so subscribers need no read.
    expect(events().every((e) => e.execution?.includes('"QUEUED"'))).toBe(true);
    // Every event goes out before the first entry: a worker never runs one not yet announced.
    expect(sent.findIndex((s) => 'enqueued' in s)).toBe(events().length);
    expect(entries().map((e) => [e.dueAt, e.message.run?.status, !!e.message.job])).toEqual(
      [0, 10, 20, 30].map((s) => [at(s), 'QUEUED', true]),
    );
    expect(store.jobs.get(job._id.toHexString())).toMatchObject({ scheduleCursor: at(40), fencingToken: 1 });
    expect(result.executions).toBe(4);
    expect([...result.advanced]).toEqual([job._id.toHexString()]);
    expect(result.states.get(job._id.toHexString())).toEqual({ version: 1, status: 'ACTIVE', scheduleCursor: at(40) });
  });

  it('a pass repeated from the same view writes nothing, announces nothing, and enqueues what waits again', async () => {
    const job = jobDoc(T0, { schedule: every(10) });
    const store = new FakeSchedulerStore([job]);
    await materialise(passDeps(store).deps, [job], T0, at(30), 1);
    const again = passDeps(store);

    const result = await materialise(again.deps, [job], T0, at(30), 2);

    expect(store.all()).toHaveLength(4);
    expect(again.events()).toEqual([]);
    expect(again.entries()).toHaveLength(4);
    expect(result.advanced.size).toBe(0);
    expect(store.jobs.get(job._id.toHexString())).toMatchObject({ scheduleCursor: at(40), fencingToken: 1 });
  });

  it('queues an execution found SCHEDULED (revived by a resume) without an event of its own', async () => {
    const job = jobDoc(T0, { schedule: every(10) });
    const store = new FakeSchedulerStore([job]);
    await materialise(passDeps(store).deps, [job], T0, T0, 1);
    const revived = store.all()[0];
    Object.assign(revived, { status: 'SCHEDULED', queuedAt: null });
    const { deps, events, entries } = passDeps(store);

    await materialise(deps, [job], T0, at(10), 1);

    expect(revived).toMatchObject({ status: 'QUEUED', queuedAt: T0 });
    expect(events().map((e) => e.executionId)).not.toContain(revived._id.toHexString());
    expect(entries().map((e) => [e.id, e.message.run?.status])).toContainEqual([revived._id.toHexString(), 'QUEUED']);
  });

  it('records misfired occurrences by the job policy: SKIPPED ones announced as such, the catch-up run now', async () => {
    const job = jobDoc(at(-30), { schedule: every(10), misfirePolicy: 'RUN_ONCE' });
    const store = new FakeSchedulerStore([job]);
    const { deps, events } = passDeps(store);

    await materialise(deps, [job], T0, T0, 1, 5000);

    const byKey = new Map(store.all().map((e) => [e.occurrenceKey, e]));
    expect([-30, -20].map((s) => byKey.get(occurrenceKey(job._id, at(s)))?.status)).toEqual(['SKIPPED', 'SKIPPED']);
    expect(byKey.get(occurrenceKey(job._id, at(-10)))).toMatchObject({ status: 'QUEUED', trigger: 'CATCH_UP', scheduledFor: T0 });
    expect(
      events()
        .filter((e) => e.status === 'SKIPPED')
        .map((e) => e.previousStatus),
    ).toEqual([null, null]);
  });

  it('tells the alert sink of each occurrence it inserts SKIPPED, with its reason, and of none it queues', async () => {
    const job = jobDoc(at(-30), { schedule: every(10), misfirePolicy: 'RUN_ONCE' });
    const store = new FakeSchedulerStore([job]);
    const told: { status: string; reason: string | null; jobId: string }[] = [];
    const { deps } = passDeps(store);

    await materialise({ ...deps, alerts: { ended: (end) => told.push(end) } }, [job], T0, T0, 1, 5000);

    const skipped = store.all().filter((e) => e.status === 'SKIPPED');
    expect(told).toEqual(
      skipped.map((e) => ({
        tenantId: e.tenantId,
        jobId: job._id.toHexString(),
        executionId: e._id.toHexString(),
        status: 'SKIPPED',
        reason: e.reason,
        at: T0,
      })),
    );
    expect(told).toHaveLength(2);
    expect(told[0].reason).toEqual(expect.stringContaining('misfire'));
  });

  it('tells the alert sink of no occurrence an exclusion window skipped: the calendar working is not a fault', async () => {
    const day = { kind: 'DATES' as const, name: 'Closed', timezone: 'UTC', from: '2031-03-01', to: '2031-03-01' };
    const job = jobDoc(T0, { schedule: every(10), exclusions: [day] });
    const store = new FakeSchedulerStore([job]);
    const told: unknown[] = [];
    const { deps } = passDeps(store);

    await materialise({ ...deps, alerts: { ended: (end) => told.push(end) } }, [job], T0, T0, 1, 5000);

    const skipped = store.all().filter((e) => e.status === 'SKIPPED');
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped.every((e) => e.excluded === true && e.reason?.includes('"Closed"'))).toBe(true);
    expect(told).toEqual([]);
  });

  it('cancels what it queued for a job paused under it, leaves the queue and says so', async () => {
    const stale = jobDoc(T0, { schedule: every(10) });
    const store = new FakeSchedulerStore([{ ...stale, status: 'PAUSED', scheduleCursor: null, version: 2 }]);
    const { deps, sent, events } = passDeps(store);

    const result = await materialise(deps, [stale], T0, at(15), 1);

    expect(store.all().map((e) => [e.status, e.reason])).toEqual(Array(2).fill(['CANCELLED', STALE_REASON]));
    expect(sent.flatMap((s) => ('removed' in s ? [s.removed] : []))).toEqual(store.all().map((e) => `${e._id.toHexString()}/QUEUED`));
    expect(
      events()
        .filter((e) => e.status === 'CANCELLED')
        .map((e) => e.previousStatus),
    ).toEqual(['QUEUED', 'QUEUED']);
    expect(result.states.get(stale._id.toHexString())).toEqual({ version: 2, status: 'PAUSED', scheduleCursor: null });
    expect(store.jobs.get(stale._id.toHexString())).toMatchObject({ status: 'PAUSED', scheduleCursor: null });
  });

  it('keeps what it queued for a job updated under it and still ACTIVE', async () => {
    const stale = jobDoc(T0, { schedule: every(10) });
    const store = new FakeSchedulerStore([{ ...stale, scheduleCursor: at(5), version: 2 }]);
    const { deps, events } = passDeps(store);

    await materialise(deps, [stale], T0, at(15), 1);

    expect(store.all().map((e) => e.status)).toEqual(['QUEUED', 'QUEUED']);
    expect(events().filter((e) => e.status === 'CANCELLED')).toEqual([]);
  });

  it('records occurrences past the budget in one SKIPPED record carrying the decisions, which a repeated pass follows', async () => {
    const job = jobDoc(T0, { schedule: every(1) });
    const store = new FakeSchedulerStore([job]);
    await materialise(passDeps(store, 3).deps, [job], T0, at(20), 1);
    const records = store.all().filter((e) => e.status === 'SKIPPED');
    expect(store.all().filter((e) => e.status === 'QUEUED')).toHaveLength(3);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ scheduledFor: at(3), skippedCount: 18, skippedUntil: at(20) });
    expect(skippedOccurrences(job.schedule, records[0])).toHaveLength(18);
    expect(store.all()[0].pass).toMatchObject({ version: 1, now: T0, horizon: at(20), budgetFrom: at(3) });

    // Another leader with a stale view and budget for all: the first pass's split stands.
    const again = passDeps(store, 100);
    await materialise(again.deps, [job], T0, at(20), 2);
    expect(store.all()).toHaveLength(4);
    expect(again.events()).toEqual([]);
  });

  it("completes the first pass's decisions after its leader died between the head and the rest", async () => {
    const job = jobDoc(T0, { schedule: every(1) });
    const store = new FakeSchedulerStore([job]);
    store.failInsertAfter = 1;
    await expect(materialise(passDeps(store, 3).deps, [job], T0, at(20), 1)).rejects.toThrow('the leader died');
    expect(store.all()).toHaveLength(1);
    store.failInsertAfter = Infinity;

    await materialise(passDeps(store, 100).deps, [job], at(5), at(40), 2);

    const queued = store.all().filter((e) => e.status === 'QUEUED');
    const records = store.all().filter((e) => e.status === 'SKIPPED');
    expect(queued.map((e) => e.scheduledFor)).toEqual([at(0), at(1), at(2)]);
    expect(records.map((r) => [r.scheduledFor, r.skippedCount])).toEqual([[at(3), 18]]);
    expect(store.jobs.get(job._id.toHexString())?.scheduleCursor).toEqual(at(21));
  });

  it('cuts its own SKIPPED records back to the cursor of a job rescheduled under it', async () => {
    const stale = jobDoc(T0, { schedule: every(1) });
    const store = new FakeSchedulerStore([{ ...stale, scheduleCursor: at(10), version: 2 }]);

    await materialise(passDeps(store, 3).deps, [stale], T0, at(20), 1);

    const record = store.all().find((e) => e.status === 'SKIPPED')!;
    expect(store.rewrites).toEqual([
      { _id: record._id, skippedCount: 18, to: { skippedCount: 7, skippedUntil: at(9), reason: expect.any(String) as unknown as string } },
    ]);
  });
});

describe('JobScheduling, the api side of the scheduler', () => {
  const lookAheadMs = 30_000;
  function port(store: FakeSchedulerStore) {
    const writes: string[] = [];
    const { deps, events } = passDeps(store);
    const dueIndex = {
      expect: async (jobId: ObjectId, when: Date | null) => void writes.push(`expect ${jobId.toHexString()} ${when?.toISOString() ?? '-'}`),
      touch: async (jobId: ObjectId, when: Date | null) => void writes.push(`touch ${jobId.toHexString()} ${when?.toISOString() ?? '-'}`),
    };
    return { scheduling: jobScheduling({ ...deps, store, dueIndex }, { lookAheadMs }), writes, events };
  }

  it('names the near-term occurrences of an ACTIVE job only', () => {
    const job = jobDoc(T0, { schedule: every(10) });
    const { scheduling } = port(new FakeSchedulerStore());
    expect(scheduling.nearTermKeys(job, T0)).toEqual([0, 10, 20, 30].map((s) => occurrenceKey(job._id, at(s))));
    expect(scheduling.nearTermKeys({ ...job, status: 'PAUSED', scheduleCursor: null }, T0)).toEqual([]);
  });

  it('materialises a near-term job at once with fencing token 0 and returns it as advanced, without reading it back', async () => {
    const job = jobDoc(at(2), { schedule: every(10) });
    const store = new FakeSchedulerStore([job]);
    const { scheduling, events } = port(store);
    const findJobsByIds = store.findJobsByIds.bind(store);
    let reads = 0;
    store.findJobsByIds = async (ids) => (reads++, findJobsByIds(ids));

    const after = await scheduling.jobChanged(job, T0);

    expect(after).toMatchObject({ scheduleCursor: at(32), fencingToken: 0, updatedAt: T0 });
    expect(store.all().map((e) => [e.scheduledFor, e.fencingToken])).toEqual([2, 12, 22].map((s) => [at(s), 0]));
    expect(events()).toHaveLength(6);
    expect(reads).toBe(0);
  });

  it('leaves a job beyond the look-ahead, or not ACTIVE, to the sweep', async () => {
    const far = jobDoc(at(31), { schedule: every(10) });
    const paused = jobDoc(T0, { status: 'PAUSED', scheduleCursor: null });
    const store = new FakeSchedulerStore([far, paused]);
    const { scheduling } = port(store);
    expect(await scheduling.jobChanged(far, T0)).toBe(far);
    expect(await scheduling.jobChanged(paused, T0)).toBe(paused);
    expect(store.all()).toEqual([]);
  });

  it('reads the job back when its advance missed, and when the materialisation failed', async () => {
    const job = jobDoc(T0, { schedule: every(10) });
    const store = new FakeSchedulerStore([{ ...job, description: 'changed meanwhile', version: 2 }]);
    const { scheduling } = port(store);
    expect(await scheduling.jobChanged(job, T0)).toMatchObject({ description: 'changed meanwhile', version: 2 });

    store.failInsertAfter = 0;
    expect(await scheduling.jobChanged(job, T0)).toMatchObject({ version: 2 });
  });

  it('moves the due-index entry before a cursor write, and to the cursor as written after it (out unless ACTIVE)', async () => {
    const job = jobDoc(T0);
    const { scheduling, writes } = port(new FakeSchedulerStore());
    await scheduling.cursorMoving(job._id, T0);
    await scheduling.cursorMoved(job);
    await scheduling.cursorMoved({ ...job, status: 'PAUSED' });
    const id = job._id.toHexString();
    expect(writes).toEqual([`expect ${id} ${T0.toISOString()}`, `touch ${id} ${T0.toISOString()}`, `touch ${id} -`]);
  });
});
