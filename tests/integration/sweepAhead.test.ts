import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { JobDoc } from '../../src/domain/job.js';
import type { ExecutionDoc } from '../../src/domain/execution.js';
import { sweepDueJobs } from '../../src/scheduler/sweepDueJobs.js';
import { uniqueName } from '../support/harness.js';
import { jobDoc, materialiseFixture } from '../support/fixtures.js';

/**
 * The sweep materialises a due job up to a second look-ahead further than it must (each job its own
 * share of it), so a job due every second costs one advance of its cursor (one statement) per half
 * to whole look-ahead instead of one per pass
 * (a tenant's every-second jobs were a statement each, every second, on the leader).
 * Fixed instants: the sweep takes `now` as an argument.
 */
describe('the sweep materialises ahead', () => {
  let fixture: Awaited<ReturnType<typeof materialiseFixture>>;
  const t0 = new Date('2031-05-01T12:00:00.000Z');
  const at = (ms: number) => new Date(t0.getTime() + ms);
  const options = { lookAheadMs: 5000, misfireThresholdMs: 60_000 };

  beforeAll(async () => {
    fixture = await materialiseFixture(uniqueName('sweepahead'));
    // An empty index marked built, so the sweep does not start a rebuild beside the test.
    await fixture.deps.dueIndex.rebuild(async function* () {});
  });
  afterAll(async () => {
    await fixture?.close();
  });

  it('advances an every-second job once per half to whole look-ahead, with every occurrence materialised once', async () => {
    const job = jobDoc(t0, { schedule: { kind: 'INTERVAL', intervalSeconds: 1, timezone: 'UTC', jitterSeconds: 0 } });
    await fixture.db.collection<JobDoc>('jobs').insertOne(job);
    await fixture.deps.dueIndex.expect(job._id, t0);

    const advances: number[] = [];
    for (let second = 0; second < 20; second++) {
      const passed = await sweepDueJobs(fixture.deps, at(second * 1000), 1, options);
      if (passed.jobs > 0) advances.push(second);
    }
    // Due at 0 s, then each time the cursor comes within the 5 s look-ahead: each advance covered
    // 2.5 to 5 s past it (its stagger), so 4 to 8 advances in 20 passes instead of 20.
    expect(advances[0]).toBe(0);
    expect(advances.length).toBeGreaterThanOrEqual(4);
    expect(advances.length).toBeLessThanOrEqual(8);
    const stored = await fixture.db.collection<JobDoc>('jobs').findOne({ _id: job._id });
    const executions = await fixture.db.collection<ExecutionDoc>('executions').find({ jobId: job._id }).toArray();
    const times = executions.map((e) => e.scheduledFor.getTime() - t0.getTime()).sort((a, b) => a - b);
    // Every second from 0 up to the cursor, once each: nothing skipped, nothing doubled.
    const upTo = (stored!.scheduleCursor!.getTime() - t0.getTime()) / 1000;
    expect(upTo).toBeGreaterThan(19 + 5);
    expect(times).toEqual(Array.from({ length: upTo }, (_, i) => i * 1000));
  });

  it('advances jobs created together in different passes', async () => {
    const start = at(50_000);
    await fixture.db.collection<JobDoc>('jobs').deleteMany({});
    const every = { kind: 'INTERVAL' as const, intervalSeconds: 1, timezone: 'UTC', jitterSeconds: 0 };
    // Ids as one process hands them out in a burst (same second and process bytes, counter + 1), fixed
    // so that the spread is the same every run.
    const id = (i: number) => new ObjectId(`6b150000a1b2c3d4e5${(0x10000 + i).toString(16).padStart(6, '0')}`);
    const jobs = Array.from({ length: 40 }, (_, i) => jobDoc(start, { _id: id(i), schedule: every }));
    await fixture.db.collection<JobDoc>('jobs').insertMany(jobs);
    for (const job of jobs) await fixture.deps.dueIndex.expect(job._id, start);

    // All due in the first pass; each is due again 2.5 to 5 s later (its stagger): spread over those passes, not all in one.
    expect((await sweepDueJobs(fixture.deps, start, 1, options)).jobs).toBe(40);
    const perPass: number[] = [];
    for (let second = 1; second <= 5; second++)
      perPass.push((await sweepDueJobs(fixture.deps, at(50_000 + second * 1000), 1, options)).jobs);
    expect(perPass.reduce((a, b) => a + b, 0)).toBe(40);
    expect(Math.max(...perPass)).toBeLessThanOrEqual(20);
    expect(perPass.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
  });

  it('leaves a job the API has just written to a later pass, and sweeps the due jobs behind it meanwhile', async () => {
    const start = at(100_000);
    // The first test's job would be due too; gone, its entry is only dropped.
    await fixture.db.collection<JobDoc>('jobs').deleteMany({});
    const executionsOf = async (job: JobDoc) => fixture.db.collection<ExecutionDoc>('executions').countDocuments({ jobId: job._id });
    // The job just written comes first in the index (its cursor is the earliest); two older ones follow.
    const fresh = jobDoc(start, { updatedAt: new Date(start.getTime() - 500) });
    const older = [jobDoc(new Date(start.getTime() + 1000)), jobDoc(new Date(start.getTime() + 2000))];
    await fixture.db.collection<JobDoc>('jobs').insertMany([fresh, ...older]);
    for (const job of [fresh, ...older]) await fixture.deps.dueIndex.expect(job._id, job.scheduleCursor);

    // Batches of one: the job in its grace must not stop the pass from reaching the others.
    const first = await sweepDueJobs(fixture.deps, start, 1, { ...options, batchSize: 1 });
    expect(first.jobs).toBe(2);
    expect(await executionsOf(fresh)).toBe(0);
    for (const job of older) expect(await executionsOf(job)).toBe(1);

    // Its grace (2 s by default) over: the next pass materialises it; its index entry had stayed.
    const later = new Date(start.getTime() + 1500);
    expect((await sweepDueJobs(fixture.deps, later, 1, { ...options, batchSize: 1 })).jobs).toBe(1);
    expect(await executionsOf(fresh)).toBe(1);
  });
});
