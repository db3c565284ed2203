// Covers: src/workers/runExecution.ts
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { MongoClient, MongoNetworkError, type ObjectId } from 'mongodb';
import { RunStore } from '../../src/store/runStore.js';
import { fromGlobalId } from '../../src/ids/globalId.js';
import { INLINE_PAYLOAD_BYTES } from '../../src/queue/queueEntry.js';
import { MONGO_URL } from '../support/env.js';
import { gqlOk } from '../support/graphqlClient.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { startReceiver } from '../support/httpReceiver.js';
import { waitForExecution } from '../support/waitFor.js';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const TRIGGER = `mutation($id: ID!, $payload: JSON) { triggerJob(id: $id, payload: $payload) { execution { id } } }`;
const REASON = `query($id: ID!) { node(id: $id) { ... on Execution { reason } } }`;
const FINAL = ['SUCCEEDED', 'FAILED', 'CANCELLED'];

/** A payload too large to travel in a queue entry: the worker reads it from MongoDB (workers/attemptPayload.ts). */
function largePayload(fill: string) {
  return { data: fill.repeat(2 * INLINE_PAYLOAD_BYTES) };
}

/**
 * A payload left out of its queue entry is read by the worker once the delivery has its slots and
 * before it claims the attempt: a read that fails, or finds the job deleted, must use up no attempt
 * (with one attempt allowed, a lost one would fail the execution without its target ever called).
 */
describe('payloads the worker reads from MongoDB', () => {
  // Each execution's first request to /flaky fails; its retry, and every other request, succeeds.
  const requestsOf = new Map<unknown, number>();
  const receiver = startReceiver((req) => {
    const n = (requestsOf.get(req.headers['x-kairos-execution-id']) ?? 0) + 1;
    requestsOf.set(req.headers['x-kairos-execution-id'], n);
    return { status: req.url.startsWith('/flaky') && n === 1 ? 500 : 200 };
  });
  let k: TestKairos;

  beforeAll(async () => {
    await receiver;
    k = await startTestKairos('payloadread', { roles: ['api', 'worker'] });
  });
  afterAll(async () => {
    await k?.stop();
    await (await receiver).close();
  });

  async function createJob(token: string, input: Record<string, unknown>): Promise<string> {
    const { url } = await receiver;
    const { createJob } = await gqlOk(k.url, token, CREATE, {
      input: { name: 'big', schedule: { intervalSeconds: 31_536_000 }, paused: true, target: { http: { url } }, ...input },
    });
    return createJob.job.id as string;
  }

  const bodiesOf = async (executionId: string) =>
    (await receiver).received.filter((r) => r.headers['x-kairos-execution-id'] === executionId).map((r) => r.body);

  it('retries the delivery when the read fails, without losing an attempt, and sends the whole payload', async () => {
    const tenant = uniqueName('blip');
    const token = tokenFor(tenant, 'member');
    const jobId = await createJob(token, { retryPolicy: { maxAttempts: 1 } });
    // One failed read of this tenant's payloads, as a MongoDB that goes away for a moment fails it.
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the store as `this`
    const read = RunStore.prototype.findPayload;
    let failed = 0;
    const spy = jest.spyOn(RunStore.prototype, 'findPayload').mockImplementation(async function (
      this: RunStore,
      tenantId: string,
      id: ObjectId,
    ) {
      if (tenantId === tenant && failed++ === 0) throw new MongoNetworkError('connection reset (the test)');
      return read.call(this, tenantId, id);
    });
    try {
      const override = largePayload('o');
      const { triggerJob } = await gqlOk(k.url, token, TRIGGER, { id: jobId, payload: override });
      const execution = await waitForExecution(k.url, token, triggerJob.execution.id, FINAL, 20_000);
      expect(failed).toBeGreaterThanOrEqual(2);
      expect(execution.status).toBe('SUCCEEDED');
      expect(execution.attempts).toEqual([expect.objectContaining({ number: 1, outcome: 'SUCCEEDED', httpStatus: 200 })]);
      expect(await bodiesOf(execution.id)).toEqual([JSON.stringify(override)]);
    } finally {
      spy.mockRestore();
    }
  }, 30_000);

  it("sends the whole payload on every attempt, the job's or a trigger's (the retry's entry leaves it out too)", async () => {
    const token = tokenFor(uniqueName('retried'), 'member');
    const own = largePayload('j');
    const { url } = await receiver;
    const jobId = await createJob(token, {
      target: { http: { url: `${url}/flaky` } },
      payload: own,
      retryPolicy: { maxAttempts: 2, initialBackoffSeconds: 0.1, maxBackoffSeconds: 0.2 },
    });
    const override = largePayload('o');
    const ids = [
      (await gqlOk(k.url, token, TRIGGER, { id: jobId })).triggerJob.execution.id as string,
      (await gqlOk(k.url, token, TRIGGER, { id: jobId, payload: override })).triggerJob.execution.id as string,
    ];
    for (const [id, payload] of [
      [ids[0], own],
      [ids[1], override],
    ] as const) {
      const execution = await waitForExecution(k.url, token, id, FINAL, 20_000);
      expect(execution.attempts.map((a: any) => [a.number, a.outcome, a.httpStatus])).toEqual([
        [1, 'FAILED', 500],
        [2, 'SUCCEEDED', 200],
      ]);
      expect(await bodiesOf(id)).toEqual([JSON.stringify(payload), JSON.stringify(payload)]);
    }
  }, 30_000);

  it('cancels an execution whose job was deleted while it waited, without an attempt', async () => {
    const token = tokenFor(uniqueName('deleted'), 'member');
    // Only the api: the execution waits in the queue until a worker comes.
    const api = await startTestKairos('payloadgone', { roles: ['api'] });
    let worker: TestKairos | null = null;
    const mongo = await MongoClient.connect(MONGO_URL);
    try {
      const { url } = await receiver;
      const { createJob: created } = await gqlOk(api.url, token, CREATE, {
        input: {
          name: 'gone',
          schedule: { intervalSeconds: 31_536_000 },
          paused: true,
          target: { http: { url } },
          payload: largePayload('d'),
          retryPolicy: { maxAttempts: 1 },
        },
      });
      const { triggerJob } = await gqlOk(api.url, token, TRIGGER, { id: created.job.id });
      // As deleteJob leaves it when it stops between deleting the job and cancelling its waiting executions.
      await mongo
        .db(api.dbName)
        .collection('jobs')
        .deleteOne({ _id: fromGlobalId(created.job.id, 'Job')!.id });
      worker = await startTestKairos('payloadgone', { roles: ['worker'], joining: api });
      const execution = await waitForExecution(api.url, token, triggerJob.execution.id, FINAL, 20_000);
      expect(execution.status).toBe('CANCELLED');
      expect(execution.attempts).toEqual([]);
      expect((await gqlOk(api.url, token, REASON, { id: execution.id })).node.reason).toBe('job deleted');
      expect(await bodiesOf(execution.id)).toEqual([]);
    } finally {
      await worker?.stop();
      await api.stop();
      await mongo.close();
    }
  }, 30_000);
});
