// Covers: src/workers/runExecution.ts
import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { Client } from 'graphql-ws';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gqlOk } from '../support/graphqlClient.js';
import { EventCollector, wsClient } from '../support/subscriptions.js';
import { deploymentEnv, startProcess } from '../support/processes.js';
import { MONGO_URL, REDIS_URL } from '../support/env.js';
import { MongoClient } from 'mongodb';
import { fromGlobalId } from '../../src/ids/globalId.js';
import { ExecutionQueues, QueueShards } from '../../src/queue/executionQueues.js';
import { SchedulerStore } from '../../src/store/schedulerStore.js';
import { reconcile } from '../../src/scheduler/reconcile.js';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const SUBSCRIBE = `subscription($jobId: ID) { executionUpdated(jobId: $jobId) { status execution { id } } }`;
const EXECUTION = `query($id: ID!) { execution(id: $id) { status attempt attempts { number outcome error workerId } } }`;

type Event = { executionUpdated: { status: string; execution: { id: string } } };

describe('a worker that dies mid-attempt', () => {
  const started: TestKairos[] = [];
  let child: ChildProcess | null = null;
  const clients: Client[] = [];
  afterAll(async () => {
    child?.kill('SIGKILL');
    for (const c of clients) await c.dispose();
    for (const k of started.reverse()) await k.stop();
  });

  // The start written before the target runs, or (deferred past the kill) held only by the Redis attempt claim.
  it.each([
    ['written to MongoDB before the attempt', '0'],
    ['held only by its Redis claim', '60000'],
  ])(
    'loses its queue lock, its start %s; another worker records the attempt CRASHED and runs the next one',
    async (_, claimAfterMs) => {
      const env = { QUEUE_LOCK_MS: '1500', WORKER_CLAIM_AFTER_MS: claimAfterMs };
      const api = await startTestKairos('crash', { roles: ['api', 'scheduler'], env });
      started.push(api);
      const worker = await startProcess(deploymentEnv(api, { ROLES: 'worker', ...env }));
      child = worker.child;
      const token = tokenFor(uniqueName('crash'), 'member');
      const client = wsClient(api.url, token);
      clients.push(client);
      const { createJob } = await gqlOk(api.url, token, CREATE, {
        input: {
          name: 'long',
          schedule: { runAt: new Date(Date.now() + 1000).toISOString() },
          target: { handler: 'sleep' },
          payload: { ms: 3000 },
        },
      });
      const events = new EventCollector<Event>(client, SUBSCRIBE, { jobId: createJob.job.id });
      const [running] = (await events.waitFor((items) => items.some((e) => e.executionUpdated.status === 'RUNNING'), 10_000)).filter(
        (e) => e.executionUpdated.status === 'RUNNING',
      );
      child.kill('SIGKILL');
      // Another worker, which takes over once the dead one's lock has lapsed.
      started.push(await startTestKairos('crash-worker', { roles: ['worker'], env, joining: api }));
      await events.waitFor((items) => items.some((e) => e.executionUpdated.status === 'SUCCEEDED'), 20_000);
      events.stop();
      expect(events.items.map((e) => e.executionUpdated.status)).toEqual(
        expect.arrayContaining(['RUNNING', 'RETRYING', 'RUNNING', 'SUCCEEDED']),
      );
      const { execution } = await gqlOk(api.url, token, EXECUTION, { id: running.executionUpdated.execution.id });
      expect(execution.status).toBe('SUCCEEDED');
      expect(execution.attempt).toBe(2);
      expect(execution.attempts.map((a: any) => [a.number, a.outcome])).toEqual([
        [1, 'CRASHED'],
        [2, 'SUCCEEDED'],
      ]);
      expect(execution.attempts[0].error).toMatch(/disappeared/);
      expect(execution.attempts[0].workerId).not.toBe(execution.attempts[1].workerId);
    },
    40_000,
  );

  it('is taken over by reconcile when the queue lost the entry of a RUNNING execution past its deadline', async () => {
    // Reconcile finds RUNNING executions: the start is written before the attempt.
    const k = await startTestKairos('lost-entry', { roles: ['api', 'worker'], env: { WORKER_CLAIM_AFTER_MS: '0' } });
    started.push(k);
    const token = tokenFor(uniqueName('lost'), 'member');
    const watcher = wsClient(k.url, token);
    try {
      const { createJob } = await gqlOk(k.url, token, CREATE, {
        input: { name: 'slow', schedule: { intervalSeconds: 31_536_000 }, target: { handler: 'sleep' }, payload: { ms: 2000 } },
      });
      const events = new EventCollector<Event>(watcher, SUBSCRIBE, { jobId: createJob.job.id });
      const { triggerJob } = await gqlOk(k.url, token, `mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }`, {
        id: createJob.job.id,
      });
      await events.waitFor((items) => items.some((e) => e.executionUpdated.status === 'RUNNING'), 10_000);
      // As if the attempt had outlived its deadline and Redis had lost its entry: reconcile finds it.
      const hex = fromGlobalId(triggerJob.execution.id, 'Execution')!.id;
      const mongo = await new MongoClient(MONGO_URL).connect();
      try {
        await mongo
          .db(k.dbName)
          .collection('executions')
          .updateOne({ _id: hex }, { $set: { deadlineAt: new Date(Date.now() - 60_000) } });
        const queues = new ExecutionQueues(
          { url: REDIS_URL, maxRetriesPerRequest: null },
          k.prefix,
          () => undefined,
          new QueueShards(1),
          null,
        );
        const result = await reconcile({ store: new SchedulerStore(mongo.db(k.dbName)), queues }, new Date(), { graceMs: 0 });
        await queues.close();
        expect(result.requeued).toBe(1);
      } finally {
        await mongo.close();
      }
      await events.waitFor((items) => items.some((e) => e.executionUpdated.status === 'SUCCEEDED'), 15_000);
      events.stop();
      const { execution } = await gqlOk(k.url, token, EXECUTION, { id: triggerJob.execution.id });
      expect(execution.attempts.map((a: any) => [a.number, a.outcome])).toEqual([
        [1, 'CRASHED'],
        [2, 'SUCCEEDED'],
      ]);
    } finally {
      await watcher.dispose();
    }
  }, 40_000);
});
