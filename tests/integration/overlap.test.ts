// Covers: src/workers/admission.ts, src/workers/overlapGuard.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from 'graphql-ws';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gqlOk } from '../support/graphqlClient.js';
import { EventCollector, wsClient } from '../support/subscriptions.js';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const SUBSCRIBE = `subscription($jobId: ID) { executionUpdated(jobId: $jobId) { status previousStatus execution { id } } }`;
const HISTORY = `query($jobId: ID) { executions(first: 100, filter: { jobId: $jobId }) { edges { node {
  id status reason scheduledFor startedAt finishedAt attempts { outcome error startedAt finishedAt } } } } }`;

type Event = { executionUpdated: { status: string; previousStatus: string | null; execution: { id: string } } };
type Node = {
  id: string;
  status: string;
  reason: string | null;
  scheduledFor: string;
  startedAt: string | null;
  finishedAt: string | null;
  attempts: { outcome: string | null; error: string | null; startedAt: string; finishedAt: string | null }[];
};

/** True when two of the runs overlapped in time. */
function overlapping(nodes: Node[]): boolean {
  const runs = nodes.flatMap((n) =>
    n.attempts.map((a) => [Date.parse(a.startedAt), a.finishedAt ? Date.parse(a.finishedAt) : Infinity] as const),
  );
  runs.sort((a, b) => a[0] - b[0]);
  return runs.some((run, i) => i > 0 && run[0] < runs[i - 1][1]);
}

describe('overlap policies: an occurrence due while the previous execution still runs', () => {
  let k: TestKairos;
  let client: Client;
  const token = tokenFor(uniqueName('overlap'), 'member');

  beforeAll(async () => {
    k = await startTestKairos('overlap');
    client = wsClient(k.url, token);
  });
  afterAll(async () => {
    await client?.dispose();
    await k?.stop();
  });

  /** An interval job whose executions outlast the interval; resolves with its history once `done` holds. */
  async function run(overlapPolicy: string, sleepMs: number, intervalSeconds: number, done: (events: Event[]) => boolean): Promise<Node[]> {
    const { createJob } = await gqlOk(k.url, token, CREATE, {
      input: {
        name: overlapPolicy,
        schedule: { intervalSeconds },
        target: { handler: 'sleep' },
        payload: { ms: sleepMs },
        overlapPolicy,
        retryPolicy: { maxAttempts: 1 },
      },
    });
    const jobId = createJob.job.id;
    // Subscribed after the create: the first events may be missed, the job keeps producing more.
    const events = new EventCollector<Event>(client, SUBSCRIBE, { jobId });
    await events.waitFor(done, 20_000);
    events.stop();
    const data = await gqlOk(k.url, token, HISTORY, { jobId });
    return data.executions.edges.map((e: any) => e.node);
  }

  const count = (status: string) => (events: Event[]) => events.filter((e) => e.executionUpdated.status === status).length;

  it('ALLOW runs overlapping executions side by side', async () => {
    const nodes = await run('ALLOW', 2500, 1, (events) => count('SUCCEEDED')(events) >= 2);
    expect(overlapping(nodes)).toBe(true);
    expect(nodes.some((n) => n.status === 'SKIPPED')).toBe(false);
  });

  it('SKIP records the occurrences due during a run as SKIPPED with the reason, and never overlaps', async () => {
    const nodes = await run('SKIP', 2500, 1, (events) => count('SUCCEEDED')(events) >= 2 && count('SKIPPED')(events) >= 2);
    const skipped = nodes.filter((n) => n.status === 'SKIPPED');
    expect(skipped.length).toBeGreaterThanOrEqual(2);
    for (const n of skipped) {
      expect(n.reason).toMatch(/^overlap policy SKIP: execution [A-Za-z0-9_-]+ of this job was still running$/);
      // The id in the reason is the public id of an execution of this job that ran.
      const running = /execution (\S+) of/.exec(n.reason!)![1];
      expect(nodes.find((m) => m.id === running)?.status).toBe('SUCCEEDED');
      expect(n.attempts).toEqual([]);
    }
    expect(overlapping(nodes.filter((n) => n.status !== 'SKIPPED'))).toBe(false);
  });

  it('BUFFER_ONE holds one occurrence until the run ends, skips the others, and never overlaps', async () => {
    const nodes = await run('BUFFER_ONE', 2500, 1, (events) => count('SUCCEEDED')(events) >= 2 && count('SKIPPED')(events) >= 1);
    const succeeded = nodes.filter((n) => n.status === 'SUCCEEDED').sort((a, b) => Date.parse(a.scheduledFor) - Date.parse(b.scheduledFor));
    // The held execution was due during the first run and started right after it ended.
    const held = succeeded[1];
    expect(Date.parse(held.startedAt!) - Date.parse(held.scheduledFor)).toBeGreaterThan(500);
    expect(Date.parse(held.startedAt!)).toBeGreaterThanOrEqual(Date.parse(succeeded[0].finishedAt!));
    expect(nodes.filter((n) => n.status === 'SKIPPED').every((n) => /^overlap policy BUFFER_ONE: /.test(n.reason ?? ''))).toBe(true);
    expect(overlapping(nodes.filter((n) => n.status !== 'SKIPPED'))).toBe(false);
  });

  it('CANCEL_PREVIOUS aborts the running execution (CANCELLED, attempt CANCELLED) and runs the new one', async () => {
    const nodes = await run('CANCEL_PREVIOUS', 60_000, 2, (events) => count('CANCELLED')(events) >= 2);
    const cancelled = nodes.filter((n) => n.status === 'CANCELLED');
    expect(cancelled.length).toBeGreaterThanOrEqual(2);
    for (const n of cancelled) {
      expect(n.reason).toBe('cancelled by a newer execution (overlap policy CANCEL_PREVIOUS)');
      expect(n.attempts.map((a) => a.outcome)).toEqual(['CANCELLED']);
    }
    expect(overlapping(nodes.filter((n) => n.status === 'CANCELLED'))).toBe(false);
  });
});
