// Covers: src/executions/retryExecution.ts, src/jobs/triggerJob.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { MAX_ENTRY_DATA_BYTES } from '../../src/queue/queueEntry.js';
import { LIMITS } from '../../src/jobs/parseJobInput.js';
import { REDIS_URL } from '../support/env.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { startReceiver } from '../support/httpReceiver.js';
import { waitForExecution, waitUntil } from '../support/waitFor.js';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const TRIGGER = `mutation($id: ID!, $payload: JSON) { triggerJob(id: $id, payload: $payload) { execution { id status } } }`;
const CANCEL = `mutation($id: ID!) { cancelExecution(id: $id) { execution { id status } } }`;
const RETRY = `mutation($id: ID!) { retryExecution(id: $id) { execution { id status } } }`;
const QUOTA = `{ viewer { quota { maxWaitingExecutions waitingExecutions } } }`;
const STATUSES = `query($id: ID!) { job(id: $id) { executions(first: 100) { edges { node { status } } } } }`;

/**
 * Every tenant's waiting executions sit in the one Redis all tenants share, so a tenant at its limits
 * must leave Redis' memory within a documented bound, whatever it sends. At the defaults (600 writes
 * a minute, 1 000 waiting) a minute of triggers at the write rate ends at the cap; scaled down here,
 * the tenant gets 120 writes a minute and a cap of 20, and triggers until it has been refused at the
 * cap REFUSALS times (a count, not a duration: on a slow machine each answer takes longer). Every
 * trigger carries payloads at the limit (256 KiB, the job's and the override: the override makes the
 * entry carry the job, whose target is at every input limit too, the worst case), and no worker runs
 * (api role only), so nothing drains. The bound, docs/using-the-api.md
 * "Quotas and limits": per waiting execution, ENTRY_REDIS_BYTES, the allocation of the largest entry
 * data (MAX_ENTRY_DATA_BYTES, 60 KiB, which Redis' allocator rounds up to 64 KiB) and 2 KiB of
 * BullMQ's and the waiting index's bookkeeping (its hash's other fields, its event, the index
 * member); plus FIXED_BYTES for the keys a Kairos has without entries. Before the limits, each entry
 * took 514 KiB of payloads alone and nothing capped their number.
 */
const CAP = 20;
const PER_MINUTE = 120;
const REFUSALS = 6;
const DEADLINE_MS = 60_000;
const ENTRY_REDIS_BYTES = 66 * 1024;
const FIXED_BYTES = 64 * 1024;

/** A payload whose JSON text is `LIMITS.payloadBytes` bytes. */
const MAX_PAYLOAD = { data: 'x'.repeat(LIMITS.payloadBytes - '{"data":""}'.length) };

/** A target at every input limit: the URL that percent-encoding makes longest, and headers that take 2 bytes a character. */
function largestTarget() {
  const base = 'https://a.example/';
  const name = (i: number) => `X-H${String(i).padStart(2, '0')}`;
  const valueLength = LIMITS.headerBytes / LIMITS.headerCount - name(0).length;
  return {
    http: {
      url: base + '\uffff'.repeat(LIMITS.urlLength - base.length),
      headers: Array.from({ length: LIMITS.headerCount }, (_, i) => ({ name: name(i), value: '\u00ff"'.repeat(valueLength / 2) })),
    },
  };
}

/** What the keys under `prefix` take in Redis, each measured whole (`SAMPLES 0`); Redis is shared with the other test files. */
async function memoryUnder(redis: Redis, prefix: string): Promise<{ bytes: number; keys: number }> {
  let bytes = 0;
  let keys = 0;
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    for (const key of found) {
      bytes += (await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) as number;
      keys++;
    }
  } while (cursor !== '0');
  return { bytes, keys };
}

describe('a tenant cannot fill the shared Redis with waiting executions', () => {
  let k: TestKairos;
  let redis: Redis;

  beforeAll(async () => {
    k = await startTestKairos('waiting', {
      roles: ['api'],
      env: { DEFAULT_MAX_WAITING_EXECUTIONS: String(CAP), DEFAULT_MAX_EXECUTIONS_PER_MINUTE: String(PER_MINUTE) },
    });
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await redis?.quit();
    await k?.stop();
  });

  it('keeps a tenant at its limits within the memory bound and refuses triggers and retries past maxWaitingExecutions', async () => {
    const token = tokenFor(uniqueName('flood'), 'member');
    const { createJob } = await gqlOk(k.url, token, CREATE, {
      input: { name: 'flood', schedule: { intervalSeconds: 31_536_000 }, paused: true, target: largestTarget(), payload: MAX_PAYLOAD },
    });
    const id = createJob.job.id as string;
    const accepted: string[] = [];
    const refusals: { message: string; extensions: Record<string, unknown> }[] = [];
    // Triggers back to back, as fast as the write rate lets them (a RATE_LIMITED answer comes after its Retry-After).
    for (const end = Date.now() + DEADLINE_MS; refusals.length < REFUSALS && Date.now() < end;) {
      const result = await gql(k.url, token, TRIGGER, { id, payload: MAX_PAYLOAD });
      const error = result.errors?.[0];
      if (!error) accepted.push(result.data!.triggerJob.execution.id as string);
      else if (error.extensions?.code === 'QUOTA_EXCEEDED') refusals.push({ message: error.message, extensions: error.extensions });
      else if (error.extensions?.code !== 'RATE_LIMITED') throw new Error(`unexpected answer: ${JSON.stringify(result.errors)}`);
    }
    expect(accepted).toHaveLength(CAP);
    expect(refusals).toHaveLength(REFUSALS);
    expect(refusals[0]).toEqual({
      message: `This tenant may have at most ${CAP} executions waiting to run (maxWaitingExecutions) and has ${CAP}; wait for some to start, or cancel some`,
      extensions: expect.objectContaining({ code: 'QUOTA_EXCEEDED', maxWaitingExecutions: CAP, waitingExecutions: CAP }),
    });
    expect((await gqlOk(k.url, token, QUOTA)).viewer.quota).toEqual({ maxWaitingExecutions: CAP, waitingExecutions: CAP });

    const { bytes, keys } = await memoryUnder(redis, k.prefix);
    expect(MAX_ENTRY_DATA_BYTES).toBeLessThanOrEqual(64 * 1024);
    const bound = FIXED_BYTES + CAP * ENTRY_REDIS_BYTES;
    expect(keys).toBeGreaterThan(CAP);
    expect(bytes).toBeLessThanOrEqual(bound);

    // A retry makes a waiting execution too: one cancelled frees a place, a trigger takes it, the retry is refused.
    // Each once the write rate lets it through: the flood spent the tenant's writes.
    const written = (what: string, query: string, variables: Record<string, unknown>) =>
      waitUntil(
        `${what} within the write rate`,
        async () => {
          const result = await gql(k.url, token, query, variables);
          return result.errors?.[0]?.extensions?.code === 'RATE_LIMITED' ? undefined : result;
        },
        10_000,
        500,
      );
    const cancelled = accepted[0];
    expect((await written('a cancel', CANCEL, { id: cancelled })).errors).toBeUndefined();
    expect((await gqlOk(k.url, token, QUOTA)).viewer.quota.waitingExecutions).toBe(CAP - 1);
    expect((await written('a trigger', TRIGGER, { id })).errors).toBeUndefined();
    const retry = await written('a retry', RETRY, { id: cancelled });
    expect(retry.errors?.[0]?.extensions).toEqual(
      expect.objectContaining({ code: 'QUOTA_EXCEEDED', maxWaitingExecutions: CAP, waitingExecutions: CAP }),
    );
    expect(
      (await gqlOk(k.url, token, `query($id: ID!) { node(id: $id) { ... on Execution { status } } }`, { id: cancelled })).node.status,
    ).toBe('CANCELLED');
  }, 120_000);

  it('counts scheduled occurrences but never refuses them: only manual executions are', async () => {
    const token = tokenFor(uniqueName('scheduled'), 'member');
    // Every second: the API materialises the look-ahead's 30 occurrences at once, past the cap of 20.
    const { createJob } = await gqlOk(k.url, token, CREATE, {
      input: { name: 'every second', schedule: { intervalSeconds: 1 }, target: { handler: 'noop' } },
    });
    const { job } = await gqlOk(k.url, token, STATUSES, { id: createJob.job.id });
    const statuses = (job.executions.edges as { node: { status: string } }[]).map((e) => e.node.status);
    expect(statuses.length).toBeGreaterThan(CAP);
    expect(new Set(statuses)).toEqual(new Set(['QUEUED']));
    expect((await gqlOk(k.url, token, QUOTA)).viewer.quota.waitingExecutions).toBe(statuses.length);
    const refused = await gql(k.url, token, TRIGGER, { id: createJob.job.id });
    expect(refused.errors?.[0]?.extensions).toEqual(
      expect.objectContaining({ code: 'QUOTA_EXCEEDED', maxWaitingExecutions: CAP, waitingExecutions: statuses.length }),
    );
  });
});

describe('payloads left out of the queue entry', () => {
  it('reach the target whole, read from MongoDB by the worker, and the executions leave the waiting count', async () => {
    const receiver = await startReceiver(() => ({ status: 200 }));
    const k = await startTestKairos('waiting-run', { roles: ['api', 'worker'] });
    try {
      const token = tokenFor(uniqueName('payloads'), 'member');
      const { createJob } = await gqlOk(k.url, token, CREATE, {
        input: {
          name: 'big',
          schedule: { intervalSeconds: 31_536_000 },
          paused: true,
          target: { http: { url: receiver.url } },
          payload: MAX_PAYLOAD,
        },
      });
      const override = { data: MAX_PAYLOAD.data.replace(/x/g, 'y') };
      const own = await gqlOk(k.url, token, TRIGGER, { id: createJob.job.id });
      const overridden = await gqlOk(k.url, token, TRIGGER, { id: createJob.job.id, payload: override });
      for (const { triggerJob } of [own, overridden]) await waitForExecution(k.url, token, triggerJob.execution.id, ['SUCCEEDED'], 20_000);
      const bodies = receiver.received.map((r) => r.body).sort();
      expect(bodies).toEqual([JSON.stringify(MAX_PAYLOAD), JSON.stringify(override)]);
      await waitUntil(
        'the waiting count to drop to 0',
        async () => ((await gqlOk(k.url, token, QUOTA)).viewer.quota.waitingExecutions === 0 ? true : undefined),
        5000,
      );
    } finally {
      await k.stop();
      await receiver.close();
    }
  }, 60_000);
});
