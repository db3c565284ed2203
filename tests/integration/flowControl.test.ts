// Covers: src/workers/flowAdmission.ts, src/quotas/flowLimiter.ts, src/executions/whyWaiting.ts, src/jobs/flowKeyQuota.ts, src/schema/flowControl.input.ts, src/schema/flowControl.type.ts
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { FlowLimiter } from '../../src/quotas/flowLimiter.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { startTestKairos, tokenFor, uniqueName } from '../support/harness.js';
import { REDIS_URL } from '../support/env.js';
import { deploymentEnv, startProcess } from '../support/processes.js';
import { waitUntil } from '../support/waitFor.js';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id flowControl { key keyFromTarget maxConcurrent maxPerMinute } } } }`;
const UPDATE = `mutation($input: UpdateJobInput!) { updateJob(input: $input) { job { flowControl { key keyFromTarget maxConcurrent maxPerMinute } } } }`;
const TRIGGER = `mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }`;
const STATS = `query($jobId: ID, $since: DateTime!) { executionStats(jobId: $jobId, since: $since) { byStatus { status count } } }`;
const WAITING = `query($jobId: ID!) { job(id: $jobId) { executions(first: 50, filter: { statuses: [QUEUED] }) { edges { node { id waitingFor } } } } }`;

/** A receiver that answers after `delayMs` and records when each request came and how many were in flight at once. */
async function countingReceiver(delayMs: number) {
  const arrivals: { at: number; executionId: string }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    arrivals.push({ at: Date.now(), executionId: String(req.headers['x-kairos-execution-id']) });
    req.resume();
    const timer = setTimeout(() => {
      inFlight--;
      res.end('ok');
    }, delayMs);
    res.on('close', () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    maxInFlight: () => maxInFlight,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

const once = (url: string, flowControl: Record<string, unknown> | null, name = 'flow') => ({
  name,
  schedule: { intervalSeconds: 31_536_000, startAt: new Date(Date.now() + 31_536_000_000).toISOString() },
  target: { http: { url } },
  flowControl,
});

async function succeeded(url: string, token: string, jobId: string): Promise<number> {
  const { executionStats } = await gqlOk(url, token, STATS, { jobId, since: new Date(Date.now() - 3_600_000).toISOString() });
  return executionStats.byStatus.find((s: { status: string }) => s.status === 'SUCCEEDED')?.count ?? 0;
}

describe('flow control per key', () => {
  const stops: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
  });

  it('maxConcurrent 2 over three worker processes: the receiver never sees more than 2 at once, and all 50 succeed', async () => {
    const api = await startTestKairos('flow_conc', { roles: ['api', 'scheduler'], env: { DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '100000' } });
    stops.push(() => api.stop());
    const receiver = await countingReceiver(150);
    stops.push(receiver.close);
    const workers: ChildProcess[] = [];
    for (let i = 0; i < 3; i++) {
      const { child } = await startProcess(deploymentEnv(api, { ROLES: 'worker', ALLOW_PRIVATE_TARGETS: 'true' }));
      workers.push(child);
    }
    stops.push(async () => {
      for (const child of workers) child.kill('SIGKILL');
    });
    const tenant = uniqueName('flow');
    const token = tokenFor(tenant, 'member');
    // Two jobs calling one host share its key (the URL's origin) unless they name another.
    const jobs: string[] = [];
    for (const path of ['/a', '/b']) {
      const { createJob } = await gqlOk(api.url, token, CREATE, { input: once(receiver.url + path, { maxConcurrent: 2 }, path) });
      expect(createJob.job.flowControl).toEqual({ key: receiver.url, keyFromTarget: true, maxConcurrent: 2, maxPerMinute: null });
      jobs.push(createJob.job.id);
    }
    for (let i = 0; i < 50; i++) await gqlOk(api.url, token, TRIGGER, { id: jobs[i % 2] });
    await waitUntil(
      'all 50 executions to succeed',
      async () => ((await succeeded(api.url, token, jobs[0])) + (await succeeded(api.url, token, jobs[1])) === 50 ? true : undefined),
      60_000,
      250,
    );
    expect(receiver.maxInFlight()).toBe(2);
    expect(new Set(receiver.arrivals.map((a) => a.executionId)).size).toBe(50);
    expect(receiver.arrivals).toHaveLength(50);
    // Every place went back when its attempt ended.
    const redis = new Redis(REDIS_URL);
    try {
      expect(await new FlowLimiter(redis, api.prefix, () => new Date()).running(tenant, receiver.url)).toBe(0);
    } finally {
      await redis.quit();
    }
  }, 90_000);

  it('maxPerMinute 30: no 60 s window holds more than 30 starts, and the 31st starts a minute after the first', async () => {
    const k = await startTestKairos('flow_rate', { env: { DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '100000' } });
    stops.push(() => k.stop());
    const receiver = await countingReceiver(10);
    stops.push(receiver.close);
    const token = tokenFor(uniqueName('rate'), 'member');
    const { createJob } = await gqlOk(k.url, token, CREATE, { input: once(receiver.url, { key: 'metered', maxPerMinute: 30 }) });
    expect(createJob.job.flowControl).toMatchObject({ key: 'metered', keyFromTarget: false });
    for (let i = 0; i < 34; i++) await gqlOk(k.url, token, TRIGGER, { id: createJob.job.id });
    await waitUntil('34 requests', async () => (receiver.arrivals.length >= 34 ? true : undefined), 80_000, 250);
    const at = receiver.arrivals.map((a) => a.at).sort((a, b) => a - b);
    // The limiter counts a start when it admits it; a request reaches the receiver a little later,
    // so starts measured here may sit up to that latency closer together.
    const latencyMs = 250;
    for (let i = 0; i + 30 < at.length; i++) expect(at[i + 30] - at[i]).toBeGreaterThanOrEqual(60_000 - latencyMs);
    expect(at[29] - at[0]).toBeLessThan(10_000);
  }, 110_000);

  it("a saturated key holds none of the tenant's slots: another job runs at once, and the waiting executions say why", async () => {
    // Two slots for the whole tenant: waiters that held one would stop every other job.
    const k = await startTestKairos('flow_fair', {
      env: { DEFAULT_MAX_CONCURRENT_EXECUTIONS: '2', DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '100000' },
    });
    stops.push(() => k.stop());
    const slow = await countingReceiver(1500);
    const fast = await countingReceiver(10);
    stops.push(slow.close, fast.close);
    const token = tokenFor(uniqueName('fair'), 'member');
    const { createJob: keyed } = await gqlOk(k.url, token, CREATE, { input: once(slow.url, { maxConcurrent: 1 }, 'keyed') });
    for (let i = 0; i < 6; i++) await gqlOk(k.url, token, TRIGGER, { id: keyed.job.id });
    const reason = await waitUntil(
      'a waiting execution to say it waits for its key',
      async () => {
        const { job } = await gqlOk(k.url, token, WAITING, { jobId: keyed.job.id });
        return job.executions.edges.map((e: any) => e.node.waitingFor).find((w: string | null) => w);
      },
      10_000,
    );
    expect(reason).toBe(`waiting for flow control key "${slow.url}": 1 of maxConcurrent 1 running`);
    const { createJob: other } = await gqlOk(k.url, token, CREATE, { input: once(fast.url, null, 'other') });
    const triggeredAt = Date.now();
    await gqlOk(k.url, token, TRIGGER, { id: other.job.id });
    await waitUntil('the other job to run', async () => (fast.arrivals.length === 1 ? true : undefined), 5000, 20);
    expect(fast.arrivals[0].at - triggeredAt).toBeLessThan(1000);
    // The key's backlog is still there: the other job did not wait for it.
    expect(slow.arrivals.length).toBeLessThan(6);
    expect(slow.maxInFlight()).toBe(1);
  }, 60_000);

  it('is validated, follows the target, is removed with null, and a tenant may use at most 100 keys', async () => {
    const k = await startTestKairos('flow_api', { roles: ['api'], env: { DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '100000' } });
    stops.push(() => k.stop());
    const token = tokenFor(uniqueName('api'), 'member');
    const refusal = async (flowControl: Record<string, unknown>) => {
      const { errors } = await gql(k.url, token, CREATE, { input: once('https://api.example.com/x', flowControl) });
      return { code: errors?.[0]?.extensions?.code, field: errors?.[0]?.extensions?.field, message: errors?.[0]?.message };
    };
    expect(await refusal({})).toMatchObject({ code: 'BAD_USER_INPUT', field: 'flowControl' });
    expect(await refusal({ maxConcurrent: 0 })).toMatchObject({ code: 'BAD_USER_INPUT', field: 'flowControl.maxConcurrent' });
    expect(await refusal({ maxPerMinute: 60_001 })).toMatchObject({ code: 'BAD_USER_INPUT', field: 'flowControl.maxPerMinute' });
    expect(await refusal({ key: ' ', maxConcurrent: 1 })).toMatchObject({ code: 'BAD_USER_INPUT', field: 'flowControl.key' });

    const { createJob } = await gqlOk(k.url, token, CREATE, { input: once('https://api.example.com/x', { maxConcurrent: 3 }) });
    expect(createJob.job.flowControl.key).toBe('https://api.example.com');
    const moved = await gqlOk(k.url, token, UPDATE, {
      input: { id: createJob.job.id, target: { http: { url: 'https://other.example:8443/y' } } },
    });
    expect(moved.updateJob.job.flowControl).toEqual({
      key: 'https://other.example:8443',
      keyFromTarget: true,
      maxConcurrent: 3,
      maxPerMinute: null,
    });
    const removed = await gqlOk(k.url, token, UPDATE, { input: { id: createJob.job.id, flowControl: null } });
    expect(removed.updateJob.job.flowControl).toBeNull();

    for (let i = 0; i < 100; i++)
      await gqlOk(k.url, token, CREATE, { input: once('https://api.example.com/x', { key: `k${i}`, maxConcurrent: 1 }) });
    // A key in use stays usable; a new one is refused.
    await gqlOk(k.url, token, CREATE, { input: once('https://api.example.com/x', { key: 'k7', maxConcurrent: 1 }) });
    const { errors } = await gql(k.url, token, CREATE, { input: once('https://api.example.com/x', { key: 'k100', maxConcurrent: 1 }) });
    expect(errors?.[0]?.extensions?.code).toBe('QUOTA_EXCEEDED');
    expect(errors?.[0]?.message).toMatch(/at most 100 flow control keys/);
  }, 60_000);
});
