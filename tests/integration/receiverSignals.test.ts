// Covers: src/domain/attemptEnd.ts, src/workers/runTarget.ts, src/workers/recordEnd.ts, src/domain/nonRetryableStatuses.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MongoClient } from 'mongodb';
import type { Client } from 'graphql-ws';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { EventCollector, wsClient } from '../support/subscriptions.js';
import { startReceiver, type Reply } from '../support/httpReceiver.js';
import { MONGO_URL } from '../support/env.js';
import { fromGlobalId } from '../../src/ids/globalId.js';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id retryPolicy { nonRetryableStatuses } } } }`;
const EXECUTION = `query($jobId: ID) { executions(first: 1, filter: { jobId: $jobId }) { edges { node {
  id status error attempts { number outcome error httpStatus retryAfterSeconds startedAt finishedAt } } } } }`;
const SUBSCRIBE = `subscription($jobId: ID) { executionUpdated(jobId: $jobId) { status } }`;
const FINAL = ['SUCCEEDED', 'FAILED', 'CANCELLED'];
// Small backoffs, so that a wait of seconds can only be the receiver's Retry-After.
const QUICK_RETRIES = { maxAttempts: 3, initialBackoffSeconds: 0.2, maxBackoffSeconds: 0.5, backoffMultiplier: 2 };

type Attempt = { number: number; outcome: string; error: string | null; httpStatus: number | null; retryAfterSeconds: number | null };
type Execution = { id: string; status: string; error: string | null; attempts: (Attempt & { startedAt: string; finishedAt: string })[] };

describe("HTTP deliveries obey the receiver's signals", () => {
  let k: TestKairos;
  let client: Client;
  const tenant = uniqueName('signals');
  const token = tokenFor(tenant, 'member');
  const receiver = startReceiver((req): Reply => {
    const path = req.url.split('?')[0];
    // The first attempt to /busy is turned away with a Retry-After; later ones succeed.
    if (path === '/busy')
      return req.headers['x-kairos-attempt'] === '1' ? { status: 429, headers: { 'Retry-After': '4' } } : { status: 200 };
    if (path === '/bad') return { status: 400, body: 'missing field' };
    if (path === '/moved') return { status: 301, headers: { Location: 'https://example.com/new-home?v=2' } };
    return { status: 200 };
  });

  beforeAll(async () => {
    k = await startTestKairos('signals');
    client = wsClient(k.url, token);
  });
  afterAll(async () => {
    await client?.dispose();
    await (await receiver).close();
    await k?.stop();
  });

  /** Creates a job due in about a second calling `path`, and waits for its execution to finish. */
  async function run(path: string, retryPolicy: Record<string, unknown>) {
    const r = await receiver;
    const events = new EventCollector<unknown>(client, SUBSCRIBE, {});
    const runAt = new Date(Date.now() + 1000).toISOString();
    const { createJob } = await gqlOk(k.url, token, CREATE, {
      input: { name: 'signals', schedule: { runAt }, target: { http: { url: `${r.url}${path}` } }, retryPolicy },
    });
    const jobId: string = createJob.job.id;
    try {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const node = (await gqlOk(k.url, token, EXECUTION, { jobId })).executions.edges[0]?.node as Execution | undefined;
        if (node && FINAL.includes(node.status)) {
          const calls = r.received.filter((q) => q.headers['x-kairos-job-id'] === jobId);
          return { job: createJob.job, execution: node, calls };
        }
        if (Date.now() > deadline) throw new Error(`execution of ${path} not finished: ${JSON.stringify(node)}`);
        // The final status event is the signal; a bounded wait covers one sent before the subscription was up.
        const seen = events.items.length;
        await events.waitFor((items) => items.length > seen, 2000).catch(() => undefined);
      }
    } finally {
      events.stop();
    }
  }

  it('holds the retry of a 429 back for its Retry-After and records the wait', async () => {
    const { execution, calls } = await run('/busy', QUICK_RETRIES);
    expect(execution.status).toBe('SUCCEEDED');
    expect(execution.attempts.map((a) => [a.number, a.outcome, a.httpStatus, a.retryAfterSeconds])).toEqual([
      [1, 'FAILED', 429, 4],
      [2, 'SUCCEEDED', 200, null],
    ]);
    const [first, second] = execution.attempts;
    expect(Date.parse(second.startedAt) - Date.parse(first.finishedAt)).toBeGreaterThanOrEqual(4000);
    expect(calls[1].at - calls[0].at).toBeGreaterThanOrEqual(4000);
    // The store holds the wait on the attempt too.
    const mongo = new MongoClient(MONGO_URL);
    try {
      const doc = await mongo
        .db(k.dbName)
        .collection<{ attempts: { retryAfterSeconds?: number | null }[] }>('executions')
        .findOne({ _id: fromGlobalId(execution.id, 'Execution')!.id });
      expect(doc?.attempts.map((a) => a.retryAfterSeconds ?? null)).toEqual([4, null]);
    } finally {
      await mongo.close();
    }
  });

  it('fails a 400 at once, saying it was not retried', async () => {
    const { execution, calls } = await run('/bad', QUICK_RETRIES);
    expect(execution.status).toBe('FAILED');
    expect(calls).toHaveLength(1);
    expect(execution.attempts.map((a) => [a.number, a.outcome, a.httpStatus])).toEqual([[1, 'FAILED', 400]]);
    expect(execution.error).toBe(
      'HTTP 400: not retried (400 is a non-retryable status; set retryPolicy.nonRetryableStatuses to change this)',
    );
    expect(execution.attempts[0].error).toBe(execution.error);
  });

  it('retries a 400 for a job whose nonRetryableStatuses is empty', async () => {
    const { job, execution, calls } = await run('/bad', { ...QUICK_RETRIES, maxAttempts: 2, nonRetryableStatuses: [] });
    expect(job.retryPolicy.nonRetryableStatuses).toEqual([]);
    expect(execution.status).toBe('FAILED');
    expect(calls).toHaveLength(2);
    expect(execution.attempts.map((a) => [a.number, a.outcome, a.httpStatus])).toEqual([
      [1, 'FAILED', 400],
      [2, 'FAILED', 400],
    ]);
    expect(execution.error).toBe('HTTP 400');

    // An update that leaves the list out keeps it; a bad one is refused, naming the field.
    const UPDATE = `mutation($input: UpdateJobInput!) { updateJob(input: $input) { job { retryPolicy { maxAttempts nonRetryableStatuses } } } }`;
    const kept = await gqlOk(k.url, token, UPDATE, { input: { id: job.id, retryPolicy: { maxAttempts: 5 } } });
    expect(kept.updateJob.job.retryPolicy).toEqual({ maxAttempts: 5, nonRetryableStatuses: [] });
    const refused = await gql(k.url, token, UPDATE, { input: { id: job.id, retryPolicy: { nonRetryableStatuses: [404, 99] } } });
    expect(refused.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'retryPolicy.nonRetryableStatuses' });
  });

  it('fails a redirect at once, naming where it pointed, without following it', async () => {
    const { execution, calls } = await run('/moved', QUICK_RETRIES);
    expect(execution.status).toBe('FAILED');
    expect(calls).toHaveLength(1);
    expect(execution.attempts.map((a) => [a.number, a.outcome, a.httpStatus])).toEqual([[1, 'FAILED', 301]]);
    expect(execution.error).toBe('HTTP 301: redirect to https://example.com/new-home?v=2 not followed; point the job at the final URL');
  });
});
