// Covers: src/resolvers/mappers.ts, src/workers/handlers/builtins.ts, src/workers/runExecution.ts
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MongoClient } from 'mongodb';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gqlOk } from '../support/graphqlClient.js';
import { EventCollector, wsClient } from '../support/subscriptions.js';
import { startReceiver } from '../support/httpReceiver.js';
import { MONGO_URL, REDIS_URL } from '../support/env.js';
import { ExecutionQueues, QueueShards } from '../../src/queue/executionQueues.js';
import { bufferedEntry } from '../../src/queue/queueEntry.js';
import { fromGlobalId } from '../../src/ids/globalId.js';
import type { Client } from 'graphql-ws';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const EXECUTION = `query($jobId: ID) { executions(first: 1, filter: { jobId: $jobId }) { edges { node {
  id status attempt maxAttempts error result nextAttemptAt finishedAt durationMs
  attempts { number outcome error httpStatus workerId startedAt finishedAt } } } } }`;
const SUBSCRIBE = `subscription($jobId: ID) { executionUpdated(jobId: $jobId) { status previousStatus execution { id } } }`;

type Event = { executionUpdated: { status: string; previousStatus: string | null; execution: { id: string } } };

describe('workers run targets and record every attempt', () => {
  let k: TestKairos;
  let client: Client;
  const tenant = uniqueName('worker');
  const token = tokenFor(tenant, 'member');
  const receiver = startReceiver((req) => {
    if (req.url.startsWith('/fail')) return { status: 503, body: 'down for maintenance' };
    if (req.url.startsWith('/slow')) return { status: 200, delayMs: 5000 };
    return { status: 200, body: JSON.stringify({ ok: true }) };
  });

  beforeAll(async () => {
    k = await startTestKairos('worker');
    client = wsClient(k.url, token);
  });
  afterAll(async () => {
    await client?.dispose();
    await (await receiver).close();
    await k?.stop();
  });

  /** Creates a job due in about a second and waits for its execution to reach a final status. */
  async function runJob(input: Record<string, unknown>, finalStatus: string) {
    const runAt = new Date(Date.now() + 1000).toISOString();
    const events = new EventCollector<Event>(client, SUBSCRIBE, {});
    const { createJob } = await gqlOk(k.url, token, CREATE, { input: { name: 'w', schedule: { runAt }, ...input } });
    const jobId = createJob.job.id;
    // Polling MongoDB state through the API would race; the final status event is the signal.
    const finished = await waitForFinal(jobId, finalStatus, events);
    events.stop();
    return { jobId, execution: finished };
  }

  async function waitForFinal(jobId: string, status: string, events: EventCollector<Event>) {
    for (;;) {
      const data = await gqlOk(k.url, token, EXECUTION, { jobId });
      const node = data.executions.edges[0]?.node;
      if (node?.status === status) return node;
      const seen = events.items.length;
      await events.waitFor((items) => items.length > seen, 15_000);
    }
  }

  it('calls an HTTP target with every Kairos header and a signature a receiver can verify', async () => {
    const r = await receiver;
    const { jobId, execution } = await runJob(
      { target: { http: { url: `${r.url}/hook?x=1`, headers: [{ name: 'X-Custom', value: 'yes' }] } }, payload: { report: 'daily', n: 3 } },
      'SUCCEEDED',
    );
    const request = r.received.find((q) => q.headers['x-kairos-job-id'] === jobId)!;
    expect(request).toBeDefined();
    expect(request.method).toBe('POST');
    expect(JSON.parse(request.body)).toEqual({ report: 'daily', n: 3 });
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-custom']).toBe('yes');
    expect(request.headers['idempotency-key']).toBe(execution.id);
    expect(request.headers['x-kairos-execution-id']).toBe(execution.id);
    expect(request.headers['x-kairos-attempt']).toBe('1');
    expect(Date.parse(request.headers['x-kairos-scheduled-for'] as string)).not.toBeNaN();

    // Verify as a receiver would: recompute the HMAC over "<t>.<raw body>" with the tenant's secret.
    const mongo = new MongoClient(MONGO_URL);
    const tenantDoc = await mongo.db(k.dbName).collection<{ _id: string; webhookSecret: string }>('tenants').findOne({ _id: tenant });
    await mongo.close();
    const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(request.headers['x-kairos-signature'] as string)!;
    expect(match).not.toBeNull();
    expect(Math.abs(Number(match[1]) - request.at / 1000)).toBeLessThan(60);
    const expected = createHmac('sha256', tenantDoc!.webhookSecret).update(`${match[1]}.${request.body}`).digest();
    expect(timingSafeEqual(expected, Buffer.from(match[2], 'hex'))).toBe(true);

    expect(execution.result).toMatchObject({ status: 200, body: '{"ok":true}' });
    expect(execution.attempts).toEqual([expect.objectContaining({ number: 1, outcome: 'SUCCEEDED', httpStatus: 200, error: null })]);
    expect(execution.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('retries a failing target with backoff, then ends FAILED with every attempt recorded', async () => {
    const r = await receiver;
    const retryPolicy = { maxAttempts: 3, initialBackoffSeconds: 0.2, maxBackoffSeconds: 0.5, backoffMultiplier: 2 };
    const { jobId, execution } = await runJob({ target: { http: { url: `${r.url}/fail` } }, retryPolicy }, 'FAILED');
    expect(execution.attempt).toBe(3);
    expect(execution.maxAttempts).toBe(3);
    expect(execution.error).toBe('HTTP 503');
    expect(execution.attempts.map((a: any) => [a.number, a.outcome, a.httpStatus])).toEqual([
      [1, 'FAILED', 503],
      [2, 'FAILED', 503],
      [3, 'FAILED', 503],
    ]);
    const calls = r.received.filter((q) => q.headers['x-kairos-job-id'] === jobId);
    expect(calls.map((q) => q.headers['x-kairos-attempt'])).toEqual(['1', '2', '3']);
    // Same idempotency key on every attempt of one execution.
    expect(new Set(calls.map((q) => q.headers['idempotency-key'])).size).toBe(1);
    // Backoff between attempts: at least the initial backoff.
    expect(calls[1].at - calls[0].at).toBeGreaterThanOrEqual(190);
  });

  it('aborts an attempt past its timeout and records TIMED_OUT', async () => {
    const r = await receiver;
    const { execution } = await runJob(
      { target: { http: { url: `${r.url}/slow` } }, timeoutSeconds: 1, retryPolicy: { maxAttempts: 1 } },
      'FAILED',
    );
    expect(execution.attempts).toEqual([expect.objectContaining({ number: 1, outcome: 'TIMED_OUT', error: 'Timed out after 1 s' })]);
  });

  it('runs an execution once when the queue delivers it several times at once', async () => {
    const r = await receiver;
    const runAt = new Date(Date.now() + 3000).toISOString();
    const { createJob } = await gqlOk(k.url, token, CREATE, {
      input: { name: 'dup', schedule: { runAt }, target: { http: { url: `${r.url}/dup` } } },
    });
    const jobId = createJob.job.id;
    const queued = await gqlOk(k.url, token, EXECUTION, { jobId });
    const execution = queued.executions.edges[0].node;
    expect(execution.status).toBe('QUEUED');
    // Two extra deliveries of the same execution, due now, beside the one due at its time.
    const queues = new ExecutionQueues({ url: REDIS_URL, maxRetriesPerRequest: null }, k.prefix, () => undefined, new QueueShards(1), null);
    const hex = fromGlobalId(execution.id, 'Execution')!.id.toHexString();
    // One with only the id (the worker reads the execution), one with the entry's picture of it.
    const run = {
      jobId: fromGlobalId(jobId, 'Job')!.id.toHexString(),
      workload: 'IO_BOUND' as const,
      status: 'QUEUED' as const,
      attempt: 0,
      maxAttempts: 3,
      scheduledFor: runAt,
      payloadJson: null,
    };
    await queues.enqueue([
      bufferedEntry(hex, tenant, 'IO_BOUND', new Date()),
      { id: `${hex}-dup`, workload: 'IO_BOUND', dueAt: new Date(), message: { executionId: hex, tenantId: tenant, run } },
    ]);
    await queues.close();
    const events = new EventCollector<Event>(client, SUBSCRIBE, { jobId });
    const finished = await waitForFinal(jobId, 'SUCCEEDED', events);
    events.stop();
    expect(finished.attempts).toHaveLength(1);
    // Ran early, at the first delivery: a manual re-delivery is a start signal, not a schedule.
    expect(r.received.filter((q) => q.headers['x-kairos-job-id'] === jobId)).toHaveLength(1);
  });

  it('runs a handler with its payload: sleep waits the given milliseconds', async () => {
    const { execution } = await runJob({ target: { handler: 'sleep' }, payload: { ms: 300 } }, 'SUCCEEDED');
    expect(execution.result).toEqual({ sleptMs: 300 });
    expect(execution.durationMs).toBeGreaterThanOrEqual(300);
  });

  it("fires a handler's abort signal at the timeout and records TIMED_OUT", async () => {
    const { execution } = await runJob(
      { target: { handler: 'sleep' }, payload: { ms: 20_000 }, timeoutSeconds: 1, retryPolicy: { maxAttempts: 1 } },
      'FAILED',
    );
    expect(execution.attempts).toEqual([expect.objectContaining({ number: 1, outcome: 'TIMED_OUT', error: 'Timed out after 1 s' })]);
    // The sleep handler stopped when its signal fired, not after its 20 s.
    expect(execution.durationMs).toBeLessThan(5000);
  });
});
