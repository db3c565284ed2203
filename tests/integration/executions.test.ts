// Covers: src/executions/cancelExecution.ts, src/executions/retryExecution.ts, src/resolvers/deps.ts, src/resolvers/execution.resolver.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from 'graphql-ws';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { EventCollector, wsClient } from '../support/subscriptions.js';
import { waitUntil } from '../support/waitFor.js';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const TRIGGER = `mutation($id: ID!, $payload: JSON) { triggerJob(id: $id, payload: $payload) { execution { id status } } }`;
const CANCEL = `mutation($id: ID!) { cancelExecution(id: $id) { execution { id status reason } } }`;
const RETRY = `mutation($id: ID!) { retryExecution(id: $id) { execution { id status attempt maxAttempts } } }`;
const EXECUTION = `query($id: ID!) { execution(id: $id) { status reason attempt maxAttempts error attempts { number outcome error } } }`;
const SUBSCRIBE = `subscription($jobId: ID) { executionUpdated(jobId: $jobId) { status execution { id } } }`;

type Event = { executionUpdated: { status: string; execution: { id: string } } };

describe('cancelExecution and retryExecution', () => {
  let k: TestKairos;
  let client: Client;
  const token = tokenFor(uniqueName('exec'), 'member');
  const other = tokenFor(uniqueName('other'), 'admin');

  beforeAll(async () => {
    k = await startTestKairos('executions');
    client = wsClient(k.url, token);
  });
  afterAll(async () => {
    await client?.dispose();
    await k?.stop();
  });

  /** A job whose executions only run when triggered (its schedule is a year away). */
  async function job(input: Record<string, unknown>): Promise<string> {
    const data = await gqlOk(k.url, token, CREATE, { input: { name: 'x', schedule: { intervalSeconds: 31_536_000 }, ...input } });
    return data.createJob.job.id;
  }

  const reached = (events: EventCollector<Event>, id: string, status: string) =>
    events.waitFor((items) => items.some((e) => e.executionUpdated.execution.id === id && e.executionUpdated.status === status), 15_000);

  /** The execution once `n` attempts are on record: an aborted attempt whose start was not written yet (the deferred claim) is added as it ends, just after the cancel. */
  const withAttempts = (id: string, n: number) =>
    waitUntil(
      `${n} attempts on record`,
      async () => {
        const { execution } = await gqlOk(k.url, token, EXECUTION, { id });
        return execution.attempts.length >= n ? execution : undefined;
      },
      5000,
    );

  it('cancels a running attempt wherever it runs, then queues it again for a fresh round on retry', async () => {
    const jobId = await job({ target: { handler: 'sleep' }, retryPolicy: { maxAttempts: 2 } });
    const events = new EventCollector<Event>(client, SUBSCRIBE, { jobId });
    const { triggerJob } = await gqlOk(k.url, token, TRIGGER, { id: jobId, payload: { ms: 60_000 } });
    const id = triggerJob.execution.id;
    await reached(events, id, 'RUNNING');
    const started = Date.now();
    await gqlOk(k.url, token, CANCEL, { id });
    await reached(events, id, 'CANCELLED');
    expect(Date.now() - started).toBeLessThan(5000);
    const cancelled = await withAttempts(id, 1);
    expect(cancelled).toMatchObject({ status: 'CANCELLED', reason: 'cancelled by a user', attempt: 1 });
    expect(cancelled.attempts.map((a: any) => a.outcome)).toEqual(['CANCELLED']);

    // Cancelling it again: it has ended.
    expect((await gql(k.url, token, CANCEL, { id })).errors?.[0].extensions?.code).toBe('CONFLICT');

    const retried = (await gqlOk(k.url, token, RETRY, { id })).retryExecution.execution;
    expect(retried).toMatchObject({ status: 'QUEUED', attempt: 1, maxAttempts: 3 });
    // The new round runs with the execution's own payload override, so it sleeps again: cancel it too.
    await events.waitFor(
      (items) => items.filter((e) => e.executionUpdated.execution.id === id && e.executionUpdated.status === 'RUNNING').length >= 2,
      15_000,
    );
    await gqlOk(k.url, token, CANCEL, { id });
    await events.waitFor(
      (items) => items.filter((e) => e.executionUpdated.execution.id === id && e.executionUpdated.status === 'CANCELLED').length >= 2,
      15_000,
    );
    events.stop();
    const history = await withAttempts(id, 2);
    expect(history.attempts.map((a: any) => [a.number, a.outcome])).toEqual([
      [1, 'CANCELLED'],
      [2, 'CANCELLED'],
    ]);
  });

  it('cancels a queued execution before it runs, and removes it from the queue', async () => {
    const runAt = new Date(Date.now() + 2000).toISOString();
    const jobId = (await gqlOk(k.url, token, CREATE, { input: { name: 'later', schedule: { runAt }, target: { handler: 'noop' } } }))
      .createJob.job.id;
    const listed = await gqlOk(
      k.url,
      token,
      `query($jobId: ID) { executions(filter: { jobId: $jobId }) { edges { node { id status } } } }`,
      { jobId },
    );
    const { id, status } = listed.executions.edges[0].node;
    expect(status).toBe('QUEUED');
    const { cancelExecution } = await gqlOk(k.url, token, CANCEL, { id });
    expect(cancelExecution.execution).toMatchObject({ status: 'CANCELLED', reason: 'cancelled by a user' });
    // A barrier job triggered after its time: once that one succeeded, the cancelled one would have run.
    const events = new EventCollector<Event>(client, SUBSCRIBE, {});
    const barrier = await job({ schedule: { runAt: new Date(Date.now() + 2500).toISOString() }, target: { handler: 'noop' } });
    await events.waitFor((items) => items.some((e) => e.executionUpdated.status === 'SUCCEEDED'), 10_000);
    events.stop();
    expect(barrier).toBeDefined();
    expect(events.items.some((e) => e.executionUpdated.execution.id === id)).toBe(false);
    expect((await gqlOk(k.url, token, EXECUTION, { id })).execution.attempts).toEqual([]);
  });

  it('retries a FAILED execution with a fresh round of attempts; refuses SUCCEEDED ones and hides other tenants', async () => {
    const failing = await job({ target: { http: { url: 'http://127.0.0.1:9/nothing-listens-here' } }, retryPolicy: { maxAttempts: 1 } });
    const events = new EventCollector<Event>(client, SUBSCRIBE, { jobId: failing });
    const id = (await gqlOk(k.url, token, TRIGGER, { id: failing })).triggerJob.execution.id;
    await reached(events, id, 'FAILED');
    const retried = (await gqlOk(k.url, token, RETRY, { id })).retryExecution.execution;
    expect(retried).toMatchObject({ status: 'QUEUED', maxAttempts: 2 });
    await events.waitFor((items) => items.filter((e) => e.executionUpdated.status === 'FAILED').length >= 2, 15_000);
    events.stop();
    const history = (await gqlOk(k.url, token, EXECUTION, { id })).execution;
    expect(history).toMatchObject({ status: 'FAILED', attempt: 2, maxAttempts: 2 });
    expect(history.attempts.map((a: any) => a.outcome)).toEqual(['FAILED', 'FAILED']);

    const ok = await job({ target: { handler: 'noop' } });
    const okEvents = new EventCollector<Event>(client, SUBSCRIBE, { jobId: ok });
    const done = (await gqlOk(k.url, token, TRIGGER, { id: ok })).triggerJob.execution.id;
    await reached(okEvents, done, 'SUCCEEDED');
    okEvents.stop();
    expect((await gql(k.url, token, RETRY, { id: done })).errors?.[0].extensions?.code).toBe('CONFLICT');

    for (const mutation of [RETRY, CANCEL]) {
      const foreign = await gql(k.url, other, mutation, { id });
      expect(foreign.errors?.[0].extensions?.code).toBe('NOT_FOUND');
      expect((await gql(k.url, token, mutation, { id: 'not-an-id' })).errors?.[0].extensions?.code).toBe('NOT_FOUND');
    }
    expect((await gqlOk(k.url, token, EXECUTION, { id })).execution.status).toBe('FAILED');
  });

  it('counts executions by status over a window, with start-lag percentiles, for the tenant or one job', async () => {
    const mine = tokenFor(uniqueName('stats'), 'member');
    const since = new Date().toISOString();
    const create = async (target: Record<string, unknown>) =>
      (
        await gqlOk(k.url, mine, CREATE, {
          input: { name: 's', schedule: { intervalSeconds: 31_536_000 }, target, retryPolicy: { maxAttempts: 1 } },
        })
      ).createJob.job.id;
    const ok = await create({ handler: 'noop' });
    const bad = await create({ http: { url: 'http://127.0.0.1:9/closed' } });
    const watcher = wsClient(k.url, mine);
    const events = new EventCollector<Event>(
      watcher,
      `subscription { executionUpdated(statuses: [SUCCEEDED, FAILED]) { status execution { id } } }`,
    );
    for (const id of [ok, ok, bad]) await gqlOk(k.url, mine, TRIGGER, { id });
    await events.waitFor((items) => items.length >= 3, 15_000);
    events.stop();
    await watcher.dispose();
    const STATS = `query($since: DateTime!, $jobId: ID) { executionStats(since: $since, jobId: $jobId) { total byStatus { status count } startLagMsP50 startLagMsP99 } }`;
    const all = (await gqlOk(k.url, mine, STATS, { since })).executionStats;
    expect(all.total).toBe(3);
    expect(all.byStatus).toEqual([
      { status: 'SUCCEEDED', count: 2 },
      { status: 'FAILED', count: 1 },
    ]);
    expect(all.startLagMsP50).toBeGreaterThanOrEqual(0);
    expect(all.startLagMsP99).toBeGreaterThanOrEqual(all.startLagMsP50);
    expect((await gqlOk(k.url, mine, STATS, { since, jobId: ok })).executionStats).toMatchObject({
      total: 2,
      byStatus: [{ status: 'SUCCEEDED', count: 2 }],
    });
    // Another tenant's window and job are empty for this one.
    expect((await gqlOk(k.url, other, STATS, { since, jobId: ok })).executionStats).toEqual({
      total: 0,
      byStatus: [],
      startLagMsP50: null,
      startLagMsP99: null,
    });
    const empty = (await gqlOk(k.url, mine, STATS, { since: '2000-01-01T00:00:00Z', jobId: 'not-an-id' })).executionStats;
    expect(empty.total).toBe(0);
  });
});
