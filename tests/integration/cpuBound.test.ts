// Covers: src/roles/workerFactory.ts, src/workers/cpu/childProcessRunner.ts, src/workers/cpu/cpuChild.ts,
// src/workers/handlers/loadHandlers.ts
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gqlOk } from '../support/graphqlClient.js';
import { waitForExecution, waitUntil } from '../support/waitFor.js';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const TRIGGER = `mutation($id: ID!, $payload: JSON) { triggerJob(id: $id, payload: $payload) { execution { id } } }`;
const FINAL = ['SUCCEEDED', 'FAILED', 'CANCELLED'];

/** The pids of this process's children running a CPU_BOUND attempt. */
function cpuChildren(): string[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' }).trim();
  return out ? out.split('\n').filter((line) => line.includes('cpuChild.js')) : [];
}

describe('CPU_BOUND executions run in isolated child processes', () => {
  let k: TestKairos;
  const tenant = uniqueName('cpu');
  const token = tokenFor(tenant, 'member');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kairos-handlers-'));
  const handlersModule = path.join(dir, 'handlers.mjs');
  // `spin` busy-loops without yielding, so it never sees its abort signal: CPU-heavy work at its worst.
  writeFileSync(
    handlersModule,
    `export const handlers = {
      double: async ({ payload }) => ({ doubled: payload.n * 2, pid: process.pid }),
      spin: async ({ payload }) => { const until = Date.now() + payload.ms; while (Date.now() < until); return null; },
    };\n`,
  );

  beforeAll(async () => {
    k = await startTestKairos('cpu', { env: { HANDLERS_MODULE: handlersModule, WORKER_CPU_CONCURRENCY: '2' } });
  });
  afterAll(async () => {
    await k?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function job(name: string, workload: string, handler: string, extra: Record<string, unknown> = {}): Promise<string> {
    const runAt = new Date(Date.now() + 3_600_000).toISOString();
    const { createJob } = await gqlOk(k.url, token, CREATE, {
      input: { name, workload, schedule: { runAt }, target: { handler }, ...extra },
    });
    return createJob.job.id;
  }
  const trigger = async (jobId: string, payload?: unknown) =>
    (await gqlOk(k.url, token, TRIGGER, { id: jobId, payload })).triggerJob.execution.id as string;

  it('runs a handler from HANDLERS_MODULE in a child process, not in the worker', async () => {
    const id = await trigger(await job('double', 'CPU_BOUND', 'double'), { n: 21 });
    const execution = await waitForExecution(k.url, token, id, FINAL, 15_000);
    expect(execution.status).toBe('SUCCEEDED');
    expect(execution.result.doubled).toBe(42);
    expect(execution.result.pid).not.toBe(process.pid);
  });

  it('kills a busy loop that ignores its abort at the timeout (TIMED_OUT), while IO_BOUND executions and the API carry on', async () => {
    const spinner = await job('spin', 'CPU_BOUND', 'spin', { timeoutSeconds: 2, retryPolicy: { maxAttempts: 1 } });
    const spinning = await trigger(spinner, { ms: 60_000 });
    await waitForExecution(k.url, token, spinning, ['RUNNING'], 10_000);
    expect(cpuChildren()).toHaveLength(1);

    // While the child spins, the worker's own event loop is free: an IO_BOUND execution and a query complete.
    const quick = await job('quick', 'IO_BOUND', 'noop');
    const started = Date.now();
    const done = await waitForExecution(k.url, token, await trigger(quick), FINAL, 10_000);
    expect(done.status).toBe('SUCCEEDED');
    const quickMs = Date.now() - started;
    const timedOut = await waitForExecution(k.url, token, spinning, FINAL, 15_000);
    expect(quickMs).toBeLessThan(2000); // finished before the spinner's 2 s timeout: not queued behind it
    expect(timedOut.status).toBe('FAILED');
    expect(timedOut.attempts).toEqual([expect.objectContaining({ number: 1, outcome: 'TIMED_OUT', error: 'Timed out after 2 s' })]);
    // Killed after the one-second grace for ignoring the abort.
    await waitUntil('the spinning child to be killed', async () => (cpuChildren().length === 0 ? true : undefined), 5000);
  });

  it('fails the attempt with the error the handler threw in its child process', async () => {
    const thrown = await waitForExecution(
      k.url,
      token,
      await trigger(await job('double-bad', 'CPU_BOUND', 'double', { retryPolicy: { maxAttempts: 1 } }), null),
      FINAL,
      15_000,
    );
    expect(thrown.status).toBe('FAILED');
    expect(thrown.attempts[0]).toEqual(
      expect.objectContaining({ outcome: 'FAILED', error: expect.stringContaining('Cannot read properties of null') }),
    );
  });
});
