import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { gqlOk } from '../support/graphqlClient.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { waitForExecution, waitUntil } from '../support/waitFor.js';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const TRIGGER = `mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }`;
const PAUSE = `mutation($id: ID!) { pauseJob(id: $id) { job { id } } }`;
const EXECUTIONS = `query($jobId: ID!) { executions(first: 100, filter: { jobId: $jobId }) {
  edges { node { id status reason scheduledFor skippedCount attempts { startedAt finishedAt } } } } }`;

interface Execution {
  id: string;
  status: string;
  reason: string | null;
  scheduledFor: string;
  /** On a SKIPPED record of occurrences past the budget: how many it stands for. */
  skippedCount: number | null;
  attempts: { startedAt: string; finishedAt: string | null }[];
}

async function executionsOf(url: string, token: string, jobId: string): Promise<Execution[]> {
  return (await gqlOk(url, token, EXECUTIONS, { jobId })).executions.edges.map((edge: { node: Execution }) => edge.node);
}

/** The most attempts that overlapped in time. */
function mostAtOnce(executions: Execution[]): number {
  const edges = executions
    .flatMap((e) => e.attempts)
    .flatMap(
      (a) =>
        [
          [Date.parse(a.startedAt), 1],
          [a.finishedAt ? Date.parse(a.finishedAt) : Infinity, -1],
        ] as const,
    )
    // An attempt ending at the instant another starts does not overlap it.
    .sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let running = 0;
  let most = 0;
  for (const [, step] of edges) most = Math.max(most, (running += step));
  return most;
}

describe('fair share of a worker between tenants', () => {
  let k: TestKairos;

  beforeAll(async () => {
    // Four IO slots, half of them at most for one tenant; the tenants' quota (100 running) is far above both.
    k = await startTestKairos('fairshare', { env: { WORKER_IO_CONCURRENCY: '4', WORKER_TENANT_SHARE_PERCENT: '50' } });
  });
  afterAll(async () => {
    await k?.stop();
  });

  it("a tenant that fills its share waits; another tenant's execution starts meanwhile", async () => {
    const a = tokenFor(uniqueName('busy'), 'member');
    const b = tokenFor(uniqueName('other'), 'member');
    const sleeper = (
      await gqlOk(k.url, a, CREATE, {
        input: {
          name: 'sleeper',
          schedule: { intervalSeconds: 3600 },
          paused: true,
          target: { handler: 'sleep' },
          payload: { ms: 2000 },
          timeoutSeconds: 30,
        },
      })
    ).createJob.job.id;
    const quick = (
      await gqlOk(k.url, b, CREATE, {
        input: { name: 'quick', schedule: { intervalSeconds: 3600 }, paused: true, target: { handler: 'noop' } },
      })
    ).createJob.job.id;
    const triggered = 6;
    for (let i = 0; i < triggered; i++) await gqlOk(k.url, a, TRIGGER, { id: sleeper });
    await waitUntil(
      'tenant A to run two executions',
      async () => ((await executionsOf(k.url, a, sleeper)).filter((e) => e.status === 'RUNNING').length >= 2 ? true : undefined),
      15_000,
    );

    const other = (await gqlOk(k.url, b, TRIGGER, { id: quick })).triggerJob.execution.id;
    expect((await waitForExecution(k.url, b, other, ['SUCCEEDED', 'FAILED'], 20_000)).status).toBe('SUCCEEDED');
    // B ran while A's excess was still waiting its turn (QUEUED, not failed), A within its share.
    const meanwhile = await executionsOf(k.url, a, sleeper);
    expect(meanwhile.filter((e) => e.status === 'QUEUED').length).toBeGreaterThan(0);
    expect(meanwhile.filter((e) => e.status === 'RUNNING').length).toBeLessThanOrEqual(2);

    const ended = await waitUntil(
      "all of A's executions to end",
      async () => {
        const all = await executionsOf(k.url, a, sleeper);
        return all.every((e) => ['SUCCEEDED', 'FAILED', 'CANCELLED', 'SKIPPED'].includes(e.status)) ? all : undefined;
      },
      30_000,
      250,
    );
    expect(ended.map((e) => e.status)).toEqual(Array(triggered).fill('SUCCEEDED'));
    // Each ran once, never more than the share at once.
    expect(ended.map((e) => e.attempts.length)).toEqual(Array(triggered).fill(1));
    expect(mostAtOnce(ended)).toBe(2);
  });
});

describe('scheduled occurrences count against maxExecutionsPerMinute', () => {
  let k: TestKairos;

  beforeAll(async () => {
    k = await startTestKairos('schedbudget', { env: { DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '5' } });
  });
  afterAll(async () => {
    await k?.stop();
  });

  it('runs a burst of the budget, records the occurrences past it SKIPPED with the reason, and leaves other tenants alone', async () => {
    const busy = tokenFor(uniqueName('sched'), 'member');
    const calm = tokenFor(uniqueName('calm'), 'member');
    const every = { schedule: { intervalSeconds: 1 }, target: { handler: 'noop' } };
    const started = Date.now();
    const hot = (await gqlOk(k.url, busy, CREATE, { input: { name: 'every second', ...every } })).createJob.job.id;
    const other = (await gqlOk(k.url, calm, CREATE, { input: { name: 'also every second', ...every } })).createJob.job.id;
    // The look-ahead (30 s) materialises about thirty occurrences of each at once.
    const seen = await waitUntil(
      'occurrences past the budget',
      async () => {
        const all = await executionsOf(k.url, busy, hot);
        return all.reduce((sum, e) => sum + (e.skippedCount ?? 1), 0) >= 12 ? all : undefined;
      },
      15_000,
    );
    // Past its budget the tenant can still write: scheduled runs have a budget of their own.
    await gqlOk(k.url, busy, PAUSE, { id: hot });
    const elapsedMinutes = (Date.now() - started) / 60_000;

    const inOrder = [...seen].sort((x, y) => Date.parse(x.scheduledFor) - Date.parse(y.scheduledFor));
    const skipped = inOrder.filter((e) => e.status === 'SKIPPED');
    const ran = inOrder.filter((e) => e.status !== 'SKIPPED');
    // A burst of five, plus one more for each twelfth of a minute the test took.
    expect(ran.length).toBeGreaterThanOrEqual(5);
    expect(ran.length).toBeLessThanOrEqual(5 + Math.ceil(elapsedMinutes * 5));
    expect(inOrder.slice(0, 5).map((e) => e.status)).not.toContain('SKIPPED');
    // Past it, the occurrences of a pass are one SKIPPED record, which says how many.
    expect(skipped.length).toBeGreaterThan(0);
    for (const e of skipped) {
      expect(e.skippedCount).toBeGreaterThanOrEqual(1);
      expect(e.reason).toMatch(/over the tenant's budget of 5 scheduled executions per minute \(maxExecutionsPerMinute\)$/);
    }
    for (const e of ran.slice(0, 5)) expect(['QUEUED', 'RUNNING', 'SUCCEEDED', 'CANCELLED']).toContain(e.status);

    // The other tenant's first occurrences run: its budget is its own.
    const calmFirst = await waitUntil(
      "the other tenant's first occurrence",
      async () => {
        const all = (await executionsOf(k.url, calm, other)).sort((x, y) => Date.parse(x.scheduledFor) - Date.parse(y.scheduledFor));
        return all.length > 0 ? all[0] : undefined;
      },
      10_000,
    );
    expect((await waitForExecution(k.url, calm, calmFirst.id, ['SUCCEEDED', 'FAILED', 'SKIPPED'], 15_000)).status).toBe('SUCCEEDED');
    await gqlOk(k.url, calm, PAUSE, { id: other });
  });
});
