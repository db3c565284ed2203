// Covers: src/roles/apiFactory.ts, src/roles/closers.ts, src/roles/workerFactory.ts
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gqlOk } from '../support/graphqlClient.js';
import { deploymentEnv, startProcess } from '../support/processes.js';
import { waitForExecution } from '../support/waitFor.js';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const TRIGGER = `mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }`;
const FINAL = ['SUCCEEDED', 'FAILED', 'CANCELLED'];
const QUEUE_LOCK_MS = 1500;

/** Worker and api processes of one deployment, stopped with SIGTERM while they work. */
describe('graceful shutdown on SIGTERM', () => {
  let k: TestKairos;
  const token = tokenFor(uniqueName('shutdown'), 'member');
  const children: ChildProcess[] = [];
  const processEnv = (extra: Record<string, string>) => deploymentEnv(k, { QUEUE_LOCK_MS: String(QUEUE_LOCK_MS), ...extra });
  const spawn = async (extra: Record<string, string>) => {
    const started = await startProcess(processEnv(extra));
    children.push(started.child);
    return started;
  };
  const sigterm = async (child: ChildProcess) => {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    return (await exited)[0] as number | null;
  };
  /** A sleep job triggered now; resolves with the execution id once a worker runs it. */
  const runSleep = async (ms: number) => {
    const { createJob } = await gqlOk(k.url, token, CREATE, {
      input: {
        name: `sleep-${ms}`,
        schedule: { runAt: new Date(Date.now() + 3_600_000).toISOString() },
        target: { handler: 'sleep' },
        payload: { ms },
      },
    });
    const { triggerJob } = await gqlOk(k.url, token, TRIGGER, { id: createJob.job.id });
    await waitForExecution(k.url, token, triggerJob.execution.id, ['RUNNING'], 10_000);
    return triggerJob.execution.id as string;
  };

  beforeAll(async () => {
    k = await startTestKairos('shutdown', { roles: ['api', 'scheduler'], env: { QUEUE_LOCK_MS: String(QUEUE_LOCK_MS) } });
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await k?.stop();
  });

  it('keeps the queue lock of a handler running far longer than the lock, so it runs once', async () => {
    const worker = await spawn({ ROLES: 'worker' });
    const id = await runSleep(QUEUE_LOCK_MS * 3);
    const done = await waitForExecution(k.url, token, id, FINAL, 20_000);
    expect(done.attempts.map((a: any) => a.outcome)).toEqual(['SUCCEEDED']);
    expect(await sigterm(worker.child)).toBe(0);
  });

  it('lets a running attempt finish within the drain timeout, then exits 0', async () => {
    const worker = await spawn({ ROLES: 'worker', WORKER_DRAIN_MS: '10000' });
    const id = await runSleep(2000);
    expect(await sigterm(worker.child)).toBe(0);
    const done = await waitForExecution(k.url, token, id, FINAL, 5000);
    expect(done.attempts.map((a: any) => a.outcome)).toEqual(['SUCCEEDED']);
  });

  it('aborts an attempt still running at the drain timeout (CRASHED), and another worker runs it again', async () => {
    const leaving = await spawn({ ROLES: 'worker', WORKER_DRAIN_MS: '500' });
    // Long enough to outlast the second worker's start on a loaded machine (with 3 s the attempt
    // sometimes finished before the SIGTERM, and nothing was aborted).
    const id = await runSleep(10_000);
    await spawn({ ROLES: 'worker' });
    expect(await sigterm(leaving.child)).toBe(0);
    const done = await waitForExecution(k.url, token, id, FINAL, 40_000);
    expect(done.status).toBe('SUCCEEDED');
    expect(done.attempts.map((a: any) => a.outcome)).toEqual(['CRASHED', 'SUCCEEDED']);
    expect(done.attempts[0].workerId).not.toBe(done.attempts[1].workerId);
  }, 70_000);

  it('closes subscriptions with 1001 (going away) and stops accepting requests', async () => {
    const api = await spawn({ ROLES: 'api' });
    let connected!: () => void;
    const acknowledged = new Promise<void>((resolve) => (connected = resolve));
    const closed = new Promise<number>((resolve) => {
      const client = createClient({
        url: api.url.replace(/^http/, 'ws'),
        webSocketImpl: WebSocket,
        connectionParams: { authorization: `Bearer ${token}` },
        retryAttempts: 0,
        on: { connected, closed: (event) => resolve((event as { code: number }).code) },
      });
      client.subscribe(
        { query: 'subscription { executionUpdated { status } }' },
        { next: () => undefined, error: () => undefined, complete: () => undefined },
      );
    });
    // Acknowledged first, so the close is the server's doing.
    await acknowledged;
    expect(await sigterm(api.child)).toBe(0);
    expect(await closed).toBe(1001);
    await expect(fetch(api.url.replace(/graphql$/, 'healthz'))).rejects.toThrow();
  });
});
