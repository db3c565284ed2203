import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { Client } from 'graphql-ws';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gqlOk } from '../support/graphqlClient.js';
import { EventCollector, wsClient } from '../support/subscriptions.js';
import { mongoUrlFor, startProcess } from '../support/processes.js';
import { MONGO_URL, REDIS_URL, TEST_JWT_SECRET } from '../support/env.js';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const SUBSCRIBE = `subscription($jobId: ID) { executionUpdated(jobId: $jobId) { status execution { id } } }`;
const EXECUTION = `query($id: ID!) { execution(id: $id) { status attempt attempts { number outcome error workerId } } }`;

type Event = { executionUpdated: { status: string; execution: { id: string } } };

describe('a worker that dies mid-attempt', () => {
  const started: TestKairos[] = [];
  let child: ChildProcess | null = null;
  let client: Client | null = null;
  afterAll(async () => {
    child?.kill('SIGKILL');
    await client?.dispose();
    for (const k of started.reverse()) await k.stop();
  });

  it('loses its queue lock; another worker records the attempt CRASHED and runs the next one', async () => {
    const env = { QUEUE_LOCK_MS: '1500' };
    const api = await startTestKairos('crash', { roles: ['api', 'scheduler'], env });
    started.push(api);
    const worker = await startProcess({
      MONGO_URL: mongoUrlFor(MONGO_URL, api.dbName),
      REDIS_URL,
      REDIS_PREFIX: api.prefix,
      JWT_SECRET: TEST_JWT_SECRET,
      ROLES: 'worker',
      ...env,
    });
    child = worker.child;
    const token = tokenFor(uniqueName('crash'), 'member');
    client = wsClient(api.url, token);
    const { createJob } = await gqlOk(api.url, token, CREATE, {
      input: { name: 'long', schedule: { runAt: new Date(Date.now() + 1000).toISOString() }, target: { handler: 'sleep' }, payload: { ms: 3000 } },
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
    expect(events.items.map((e) => e.executionUpdated.status)).toEqual(expect.arrayContaining(['RUNNING', 'RETRYING', 'RUNNING', 'SUCCEEDED']));
    const { execution } = await gqlOk(api.url, token, EXECUTION, { id: running.executionUpdated.execution.id });
    expect(execution.status).toBe('SUCCEEDED');
    expect(execution.attempt).toBe(2);
    expect(execution.attempts.map((a: any) => [a.number, a.outcome])).toEqual([
      [1, 'CRASHED'],
      [2, 'SUCCEEDED'],
    ]);
    expect(execution.attempts[0].error).toMatch(/disappeared/);
    expect(execution.attempts[0].workerId).not.toBe(execution.attempts[1].workerId);
  }, 40_000);
});
