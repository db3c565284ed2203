// The leader's overdue check against a real Redis: what one pass reads follows the entries that
// became late, not the entries (or jobs) stored.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { OverdueCheck } from '../../src/alerts/overdueCheck.js';
import type { OverdueEntry } from '../../src/alerts/alertEvaluator.js';
import { silentLogger } from '../support/workerFakes.js';
import { REDIS_URL } from '../support/env.js';
import { uniqueName } from '../support/harness.js';
import { dropRedisPrefix } from '../../tools/servers/dropRedisPrefix.js';

const QUEUE = '{executions-io-0}';
const NOW = Date.parse('2026-03-01T12:00:00.000Z');
/** BullMQ's score of an entry due at `ms` (getDelayedScore.lua). */
const score = (ms: number, n = 0) => ms * 0x1000 + n;

describe('the overdue check', () => {
  const prefix = uniqueName('overdue');
  let redis: Redis;
  const raised: OverdueEntry[] = [];
  let check: OverdueCheck;

  /** An entry of `job` due at `dueMs`, as BullMQ keeps it: a member of the delayed set and a hash with its data. */
  async function entry(id: string, job: string, dueMs: number): Promise<void> {
    await redis.zadd(`${prefix}:${QUEUE}:delayed`, score(dueMs), id);
    const data = { executionId: id, tenantId: 'acme', run: { jobId: job } };
    await redis.hset(`${prefix}:${QUEUE}:${id}`, 'data', JSON.stringify(data));
  }

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    // 20,000 entries due later (a large deployment's schedules, materialised ahead): no pass reads them.
    const future: (string | number)[] = [];
    for (let i = 0; i < 20_000; i++) future.push(score(NOW + 60_000 + i), `future-${i}`);
    await redis.zadd(`${prefix}:${QUEUE}:delayed`, ...future);
    await entry('late-a', 'watched-job', NOW - 5000);
    await entry('late-b', 'watched-job', NOW - 4000);
    await entry('late-c', 'job-without-rule', NOW - 4000);
    check = new OverdueCheck(
      redis,
      prefix,
      [QUEUE],
      {
        overdueThresholdMs: async (_tenant, job) => (job === 'watched-job' ? 10_000 : null),
        overdue: async (e) => void raised.push(e),
      },
      silentLogger(),
      { batch: 2, maxWatched: 100 },
    );
  });
  afterAll(async () => {
    await dropRedisPrefix(redis, prefix);
    await redis.quit();
  });

  it('reads only the late entries, a bounded batch a pass, and raises none before its threshold', async () => {
    expect(await check.check(new Date(NOW))).toEqual({ read: 2, overdue: 0 });
    expect(await check.check(new Date(NOW))).toEqual({ read: 1, overdue: 0 });
    // Nothing new became late: the pass reads nothing, however many entries wait for later.
    expect(await check.check(new Date(NOW + 500))).toEqual({ read: 0, overdue: 0 });
    expect(raised).toEqual([]);
  });

  it("raises an entry still waiting past its job's threshold, and not one that started meanwhile", async () => {
    // late-b started: a worker took it out of the delayed set.
    await redis.zrem(`${prefix}:${QUEUE}:delayed`, 'late-b');
    expect(await check.check(new Date(NOW + 6000))).toEqual({ read: 0, overdue: 1 });
    expect(raised).toEqual([{ tenantId: 'acme', jobId: 'watched-job', executionId: 'late-a', dueAt: new Date(NOW - 5000) }]);
    // Raised once: the entry is no longer watched.
    expect(await check.check(new Date(NOW + 7000))).toEqual({ read: 0, overdue: 0 });
  });

  it('reads again from the oldest entry after reset (a new leader)', async () => {
    check.reset();
    expect((await check.check(new Date(NOW + 7000))).read).toBe(2);
  });
});
