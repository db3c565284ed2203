// Covers: src/transitions/skipOccurrences.ts
import { afterAll, describe, expect, it } from '@jest/globals';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gqlOk } from '../support/graphqlClient.js';
import { setTimeout as sleep } from 'node:timers/promises';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const HISTORY = `query($jobId: ID) { executions(first: 100, filter: { jobId: $jobId }) { edges { node { status trigger reason scheduledFor } } } }`;

interface Node {
  status: string;
  trigger: string;
  reason: string | null;
  scheduledFor: string;
}

/** The scheduler's downtime is the scenario itself, so this waits on the clock, not on an event. */
const downFor = (ms: number) => sleep(ms);

describe('misfire policies: occurrences missed while no scheduler ran', () => {
  const started: TestKairos[] = [];
  afterAll(async () => {
    for (const k of started.reverse()) await k.stop();
  });

  it('RUN_ONCE runs one catch-up, RUN_ALL each missed one, SKIP none; each records the rest; a short failover is no misfire', async () => {
    // A look-ahead of 1 s and a misfire threshold of 2 s make a few seconds without a scheduler a real gap.
    const env = { LOOK_AHEAD_MS: '1000', LEASE_TTL_MS: '1000' };
    const scheduler = { misfireThresholdMs: 2000 };
    const apiAndWorker = await startTestKairos('misfire', { roles: ['api', 'worker'], env, scheduler });
    started.push(apiAndWorker);
    const token = tokenFor(uniqueName('misfire'), 'member');
    const jobs: Record<string, string> = {};
    for (const misfirePolicy of ['RUN_ONCE', 'RUN_ALL', 'SKIP']) {
      const data = await gqlOk(apiAndWorker.url, token, CREATE, {
        input: { name: misfirePolicy, schedule: { intervalSeconds: 1 }, target: { handler: 'noop' }, misfirePolicy },
      });
      jobs[misfirePolicy] = data.createJob.job.id;
    }
    const gapStart = Date.now();
    await downFor(6000);
    const leader = await startTestKairos('misfire-scheduler', { roles: ['scheduler'], env, scheduler, joining: apiAndWorker });
    started.push(leader);
    const history = async (policy: string): Promise<Node[]> =>
      (await gqlOk(apiAndWorker.url, token, HISTORY, { jobId: jobs[policy] })).executions.edges.map((e: any) => e.node);
    // Wait until every job has run an occurrence after the gap on the normal schedule again.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const resumed = await Promise.all(
        Object.keys(jobs).map(async (p) =>
          (await history(p)).some(
            (n) => n.trigger === 'SCHEDULE' && n.status === 'SUCCEEDED' && Date.parse(n.scheduledFor) > gapStart + 6000,
          ),
        ),
      );
      if (resumed.every(Boolean)) break;
      if (Date.now() > deadline) throw new Error('jobs did not resume after the gap');
      await downFor(200);
    }
    const missedIn = (nodes: Node[]) => nodes.filter((n) => n.status === 'SKIPPED' || n.trigger === 'CATCH_UP');

    const runOnce = missedIn(await history('RUN_ONCE'));
    expect(runOnce.filter((n) => n.trigger === 'CATCH_UP')).toEqual([expect.objectContaining({ status: 'SUCCEEDED' })]);
    const runOnceSkipped = runOnce.filter((n) => n.status === 'SKIPPED');
    expect(runOnceSkipped.length).toBeGreaterThanOrEqual(2);
    for (const n of runOnceSkipped)
      expect(n.reason).toBe(
        'missed while the scheduler was down; one catch-up execution ran for the missed occurrences (misfire policy RUN_ONCE)',
      );

    const runAll = missedIn(await history('RUN_ALL'));
    expect(runAll.length).toBeGreaterThanOrEqual(3);
    expect(runAll.every((n) => n.trigger === 'CATCH_UP' && n.status === 'SUCCEEDED')).toBe(true);

    const skip = missedIn(await history('SKIP'));
    expect(skip.length).toBeGreaterThanOrEqual(3);
    expect(skip.every((n) => n.status === 'SKIPPED' && n.reason === 'missed while the scheduler was down (misfire policy SKIP)')).toBe(
      true,
    );

    // Every nominal second of the gap is accounted for exactly once per job.
    for (const policy of Object.keys(jobs)) {
      const nodes = await history(policy);
      const seconds = nodes.filter((n) => n.trigger !== 'CATCH_UP').map((n) => n.scheduledFor);
      expect(new Set(seconds).size).toBe(seconds.length);
    }

    // A failover shorter than the threshold is not a misfire: the standby takes over, all runs as SCHEDULE.
    const before = Date.now();
    await leader.stop();
    started.splice(started.indexOf(leader), 1);
    const standby = await startTestKairos('misfire-standby', { roles: ['scheduler'], env, scheduler, joining: apiAndWorker });
    started.push(standby);
    await downFor(3000);
    for (const policy of Object.keys(jobs)) {
      const after = (await history(policy)).filter((n) => Date.parse(n.scheduledFor) >= before);
      expect(after.length).toBeGreaterThanOrEqual(2);
      expect(after.every((n) => n.trigger === 'SCHEDULE' && n.status !== 'SKIPPED')).toBe(true);
    }
  }, 60_000);
});
