// Covers: src/executions/startBulkOperation.ts, src/executions/bulkRetry.ts, src/executions/bulkCancel.ts, src/executions/bulkRunner.ts, src/executions/bulkItems.ts, src/executions/bulkLeases.ts,
// src/roles/bulkRunnerFactory.ts, src/domain/bulkOperation.ts, src/schema/bulkOperation.type.ts, src/resolvers/bulkOperation.resolver.ts, src/store/bulkOperationStore.ts, src/store/bulkOperationRuns.ts, src/store/executionStore.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from 'graphql-ws';
import { MongoClient } from 'mongodb';
import { MONGO_URL } from '../support/env.js';
import { fromGlobalId, toGlobalId } from '../../src/ids/globalId.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { startReceiver } from '../support/httpReceiver.js';
import { insertFailedExecutions } from '../support/failedExecutions.js';
import { EventCollector, wsClient } from '../support/subscriptions.js';
import { waitUntil } from '../support/waitFor.js';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const FIELDS = 'id operationId kind status reason total done failed errors { executionId message } createdAt finishedAt';
const RETRY_ALL = `mutation($filter: ExecutionFilter!, $operationId: String) { retryExecutions(filter: $filter, operationId: $operationId) { ${FIELDS} } }`;
const CANCEL_ALL = `mutation($filter: ExecutionFilter!, $operationId: String) { cancelExecutions(filter: $filter, operationId: $operationId) { ${FIELDS} } }`;
const OPERATION = `query($id: ID!) { bulkOperation(id: $id) { ${FIELDS} } }`;
const NODE = `query($id: ID!) { node(id: $id) { id } }`;
const PROGRESS = `subscription($id: ID!) { bulkOperationProgress(id: $id) { status total done failed } }`;
const EXECUTIONS = `query($filter: ExecutionFilter) { executions(filter: $filter, first: 100) { edges { node { id status } } } }`;
const TRIGGER = `mutation($id: ID!) { triggerJob(id: $id) { execution { id status } } }`;

const MAX = 1000;
// Recent: the retention purge deletes executions finished longer ago than the tenant keeps them.
const WINDOW_START = new Date(Date.now() - 2 * 3600_000);
const WINDOW_END = new Date(Date.now() - 3600_000);

type Progress = { bulkOperationProgress: { status: string; total: number; done: number; failed: number } };

describe('bulk retries and cancels over a filter', () => {
  let k: TestKairos;
  let client: Client;
  const tenant = uniqueName('bulk');
  const token = tokenFor(tenant, 'member');
  const other = tokenFor(uniqueName('bulk-other'), 'admin');
  const receiver = startReceiver(() => ({ status: 200 }));

  beforeAll(async () => {
    k = await startTestKairos('bulk', {
      env: { BULK_MAX_EXECUTIONS: String(MAX), BULK_EXECUTIONS_PER_SECOND: '1000', DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '100000' },
    });
    client = wsClient(k.url, token);
  });
  afterAll(async () => {
    await client?.dispose();
    await k?.stop();
    await (await receiver).close();
  });

  /** A job of the tenant whose HTTP target is the local receiver, run only when triggered or retried. */
  async function httpJob(): Promise<{ id: string; hex: string }> {
    const { url } = await receiver;
    const data = await gqlOk(k.url, token, CREATE, {
      input: { name: 'dead letters', schedule: { intervalSeconds: 31_536_000 }, target: { http: { url: `${url}/hook` } } },
    });
    const id: string = data.createJob.job.id;
    return { id, hex: fromGlobalId(id, 'Job')!.id.toHexString() };
  }

  it('retries the 1,000 FAILED executions of a finishedAt window once each, streaming progress; the same operationId again does nothing', async () => {
    const { received } = await receiver;
    const job = await httpJob();
    const inWindow = await insertFailedExecutions(k.dbName, tenant, job.hex, MAX, new Date(WINDOW_START.getTime() + 60_000));
    // Outside the window: before it (finishedBefore is exclusive, so one at its end is outside too).
    const outside = [
      ...(await insertFailedExecutions(k.dbName, tenant, job.hex, 3, new Date(WINDOW_START.getTime() - 1))),
      ...(await insertFailedExecutions(k.dbName, tenant, job.hex, 2, WINDOW_END)),
    ];
    const filter = {
      jobId: job.id,
      statuses: ['FAILED'],
      finishedAfter: WINDOW_START.toISOString(),
      finishedBefore: WINDOW_END.toISOString(),
    };
    const { retryExecutions: started } = await gqlOk(k.url, token, RETRY_ALL, { filter, operationId: 'dead-letters-1' });
    expect(started).toMatchObject({ kind: 'RETRY', status: 'RUNNING', total: MAX, operationId: 'dead-letters-1' });

    const progress = new EventCollector<Progress>(client, PROGRESS, { id: started.id });
    const final = await waitUntil(
      'the operation to finish',
      async () => {
        const { bulkOperation } = await gqlOk(k.url, token, OPERATION, { id: started.id });
        return bulkOperation.status === 'RUNNING' ? undefined : bulkOperation;
      },
      60_000,
      200,
    );
    expect(final).toMatchObject({ status: 'SUCCEEDED', total: MAX, done: MAX, failed: 0, errors: [] });
    expect(final.finishedAt).not.toBeNull();
    // Its snapshot of matched executions is dropped once it ends.
    const mongo = new MongoClient(MONGO_URL);
    try {
      expect(
        await mongo
          .db(k.dbName)
          .collection('bulkOperationItems')
          .countDocuments({ operation: fromGlobalId(started.id, 'BulkOperation')!.id }),
      ).toBe(0);
    } finally {
      await mongo.close();
    }
    const streamed = await progress.waitFor((items) => items.some((e) => e.bulkOperationProgress.status === 'SUCCEEDED'), 10_000);
    expect(streamed.length).toBeGreaterThan(1);
    expect(streamed.at(-1)!.bulkOperationProgress).toEqual({ status: 'SUCCEEDED', total: MAX, done: MAX, failed: 0 });

    const ids = (requests: typeof received) => requests.map((r) => r.headers['x-kairos-execution-id']);
    await (await receiver).waitForRequests(MAX, 60_000);
    const expected = inWindow.map((id) => toGlobalId('Execution', id)).sort();
    expect([...new Set(ids(received))].sort()).toEqual(expected);

    // The same key again: the same operation, nothing retried a second time.
    const { retryExecutions: again } = await gqlOk(k.url, token, RETRY_ALL, { filter, operationId: 'dead-letters-1' });
    expect(again).toMatchObject({ id: started.id, status: 'SUCCEEDED', done: MAX });
    // Every execution retried has run (SUCCEEDED), so a second delivery would have arrived by now.
    await waitUntil(
      'the retried executions to succeed',
      async () => {
        const { executions } = await gqlOk(k.url, token, EXECUTIONS, { filter: { jobId: job.id, statuses: ['SUCCEEDED'] } });
        return executions.edges.length === 100 ? true : undefined;
      },
      30_000,
    );
    expect(received).toHaveLength(MAX);
    expect(new Set(ids(received)).size).toBe(MAX);
    // The executions outside the window are still FAILED; the window filter lists exactly them.
    const { executions: stillFailed } = await gqlOk(k.url, token, EXECUTIONS, { filter: { jobId: job.id, statuses: ['FAILED'] } });
    expect(stillFailed.edges.map((e: any) => e.node.id).sort()).toEqual(outside.map((id) => toGlobalId('Execution', id)).sort());
  }, 120_000);

  it('refuses a filter matching more than BULK_MAX_EXECUTIONS, doing nothing', async () => {
    const job = await httpJob();
    await insertFailedExecutions(k.dbName, tenant, job.hex, MAX + 1, WINDOW_START);
    const refused = await gql(k.url, token, RETRY_ALL, { filter: { jobId: job.id }, operationId: 'too-many' });
    expect(refused.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(refused.errors?.[0].message).toMatch(/more than 1000 executions/);
    const { executions } = await gqlOk(k.url, token, EXECUTIONS, {
      filter: { jobId: job.id, statuses: ['QUEUED', 'RUNNING', 'SUCCEEDED'] },
    });
    expect(executions.edges).toEqual([]);
    // Nothing was recorded under the key: a narrower filter with it starts an operation.
    const { retryExecutions } = await gqlOk(k.url, token, RETRY_ALL, {
      filter: { jobId: job.id, finishedBefore: WINDOW_START.toISOString() },
      operationId: 'too-many',
    });
    expect(retryExecutions).toMatchObject({ status: 'SUCCEEDED', total: 0 });
  });

  it("is the caller's tenant's only: another tenant reads it as not found", async () => {
    const job = await httpJob();
    const { retryExecutions } = await gqlOk(k.url, token, RETRY_ALL, { filter: { jobId: job.id } });
    expect((await gqlOk(k.url, token, OPERATION, { id: retryExecutions.id })).bulkOperation.id).toBe(retryExecutions.id);
    expect((await gqlOk(k.url, other, OPERATION, { id: retryExecutions.id })).bulkOperation).toBeNull();
    expect((await gqlOk(k.url, other, NODE, { id: retryExecutions.id })).node).toBeNull();
    // Nor can it follow its progress.
    const theirClient = wsClient(k.url, other);
    try {
      const theirs = new EventCollector<Progress>(theirClient, PROGRESS, { id: retryExecutions.id });
      await expect(theirs.waitFor(() => false, 5000)).rejects.toThrow(/was not found/);
    } finally {
      await theirClient.dispose();
    }
    // The other tenant's filter on this tenant's job matches nothing of it.
    const { retryExecutions: theirs } = await gqlOk(k.url, other, RETRY_ALL, { filter: { jobId: job.id } });
    expect(theirs).toMatchObject({ total: 0, status: 'SUCCEEDED' });
  });

  it('refuses a retry whose statuses are none it can retry', async () => {
    const refused = await gql(k.url, token, RETRY_ALL, { filter: { statuses: ['SUCCEEDED'] } });
    expect(refused.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'filter.statuses' });
  });

  it('cancels the running executions a filter matches, aborting their attempts', async () => {
    const data = await gqlOk(k.url, token, CREATE, {
      input: { name: 'long', schedule: { intervalSeconds: 31_536_000 }, target: { handler: 'sleep' }, payload: { ms: 60_000 } },
    });
    const jobId: string = data.createJob.job.id;
    for (let i = 0; i < 3; i++) await gqlOk(k.url, token, TRIGGER, { id: jobId });
    const running = { jobId, statuses: ['RUNNING'] };
    await waitUntil(
      'three running',
      async () => ((await gqlOk(k.url, token, EXECUTIONS, { filter: running })).executions.edges.length === 3 ? true : undefined),
      15_000,
    );
    const { cancelExecutions } = await gqlOk(k.url, token, CANCEL_ALL, { filter: running });
    expect(cancelExecutions).toMatchObject({ kind: 'CANCEL', total: 3 });
    const final = await waitUntil(
      'the cancel to finish',
      async () => {
        const { bulkOperation } = await gqlOk(k.url, token, OPERATION, { id: cancelExecutions.id });
        return bulkOperation.status === 'RUNNING' ? undefined : bulkOperation;
      },
      20_000,
    );
    expect(final).toMatchObject({ status: 'SUCCEEDED', done: 3, failed: 0 });
    await waitUntil(
      'three cancelled',
      async () => {
        const { executions } = await gqlOk(k.url, token, EXECUTIONS, { filter: { jobId, statuses: ['CANCELLED'] } });
        return executions.edges.length === 3 ? true : undefined;
      },
      15_000,
    );
  });
});

describe("a bulk retry at the tenant's maxWaitingExecutions", () => {
  const started: TestKairos[] = [];
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver(() => ({ status: 200 }));
  });
  afterAll(async () => {
    for (const k of started.reverse()) await k.stop();
    await receiver?.close();
  });

  it('waits for waiting room instead of failing items, and goes on once workers take executions', async () => {
    const env = { DEFAULT_MAX_WAITING_EXECUTIONS: '5', BULK_EXECUTIONS_PER_SECOND: '1000', DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '100000' };
    // No worker yet: nothing leaves the queue.
    const api = await startTestKairos('bulk-quota', { roles: ['api'], env });
    started.push(api);
    const tenant = uniqueName('bulk-quota');
    const token = tokenFor(tenant, 'member');
    const { url } = receiver;
    const { createJob } = await gqlOk(api.url, token, CREATE, {
      input: { name: 'dead letters', schedule: { intervalSeconds: 31_536_000 }, target: { http: { url: `${url}/hook` } } },
    });
    await insertFailedExecutions(api.dbName, tenant, fromGlobalId(createJob.job.id, 'Job')!.id.toHexString(), 20, new Date());
    const { retryExecutions } = await gqlOk(api.url, token, RETRY_ALL, { filter: { jobId: createJob.job.id } });
    const read = async () => (await gqlOk(api.url, token, OPERATION, { id: retryExecutions.id })).bulkOperation;
    await waitUntil('the waiting room to fill', async () => ((await read()).done === 5 ? true : undefined), 10_000);
    // Still at the cap a few room checks later, none of the rest failed.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await read()).toMatchObject({ status: 'RUNNING', done: 5, failed: 0 });

    started.push(await startTestKairos('bulk-quota-worker', { roles: ['worker'], env, joining: api }));
    const final = await waitUntil(
      'the operation to finish',
      async () => {
        const op = await read();
        return op.status === 'RUNNING' ? undefined : op;
      },
      30_000,
    );
    expect(final).toMatchObject({ status: 'SUCCEEDED', total: 20, done: 20, failed: 0 });
    const delivered = (await receiver.waitForRequests(20, 15_000)).map((r) => r.headers['x-kairos-execution-id']);
    expect(new Set(delivered).size).toBe(20);
  }, 60_000);
});
