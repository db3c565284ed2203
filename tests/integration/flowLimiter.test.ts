import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { FlowLimiter, type FlowHold } from '../../src/quotas/flowLimiter.js';
import { dropRedisPrefix } from '../../tools/servers/dropRedisPrefix.js';
import { REDIS_URL } from '../support/env.js';
import { uniqueName } from '../support/harness.js';

const T0 = new Date('2026-12-07T12:00:00.000Z').getTime();

/** The flow limiter's scripts on the real Redis, with a stepped clock. */
describe('FlowLimiter', () => {
  const prefix = uniqueName('flow');
  let redis: Redis;
  let now = T0;
  let flow: FlowLimiter;
  beforeAll(() => {
    redis = new Redis(REDIS_URL);
    flow = new FlowLimiter(redis, prefix, () => new Date(now), 60_000);
  });
  afterAll(async () => {
    await dropRedisPrefix(redis, prefix);
    await redis.quit();
  });

  const hold = (key: string, execution: string, limits: { maxConcurrent?: number; maxPerMinute?: number }, attempt = 1): FlowHold => ({
    tenantId: 'acme',
    limits: { key, maxConcurrent: limits.maxConcurrent ?? null, maxPerMinute: limits.maxPerMinute ?? null },
    executionId: execution,
    startId: `${execution}:${attempt}`,
  });

  it('gives maxConcurrent places, queues the rest, and a release hands out the oldest waiter', async () => {
    const limits = { maxConcurrent: 2 };
    now = T0;
    expect(await flow.take(hold('api', 'e1', limits), 30_000, 'IO/e1')).toEqual({ kind: 'new' });
    expect(await flow.take(hold('api', 'e2', limits), 30_000, 'IO/e2')).toEqual({ kind: 'new' });
    // A redelivery of an execution holding a place keeps it.
    expect(await flow.take(hold('api', 'e1', limits), 30_000, 'IO/e1')).toEqual({ kind: 'held' });
    expect(await flow.take(hold('api', 'e3', limits), 30_000, 'IO/e3')).toEqual({ kind: 'concurrency', waiting: 1 });
    now += 10;
    expect(await flow.take(hold('api', 'e4', limits), 30_000, 'IO/e4')).toEqual({ kind: 'concurrency', waiting: 2 });
    expect(await flow.waitNote('acme', 'api', 'e3')).toBe('concurrency|2|2');
    expect(await flow.running('acme', 'api')).toBe(2);
    const h1 = hold('api', 'e1', limits);
    expect(await flow.release('acme', h1.limits, h1, { began: true, wake: true })).toBe('IO/e3');
    expect(await flow.take(hold('api', 'e3', limits), 30_000, 'IO/e3')).toEqual({ kind: 'new' });
    expect(await flow.waitNote('acme', 'api', 'e3')).toBeNull();
    // Keys are the tenant's: another tenant's key of the same name is free.
    expect(await flow.take({ ...hold('api', 'x1', limits), tenantId: 'other' }, 30_000, 'IO/x1')).toEqual({ kind: 'new' });
  });

  it('frees the place of a worker that died once its time to live is over', async () => {
    const limits = { maxConcurrent: 1 };
    now = T0;
    await flow.take(hold('dead', 'd1', limits), 5000, 'IO/d1');
    expect(await flow.take(hold('dead', 'd2', limits), 5000, 'IO/d2')).toMatchObject({ kind: 'concurrency' });
    now = T0 + 5001;
    expect(await flow.take(hold('dead', 'd2', limits), 5000, 'IO/d2')).toEqual({ kind: 'new' });
  });

  it('counts starts in any 60 s and says when the next one is free, spreading waiters over the starts that leave next', async () => {
    const limits = { maxPerMinute: 2 };
    now = T0;
    expect(await flow.take(hold('rate', 'r1', limits), 30_000, 'IO/r1')).toEqual({ kind: 'new' });
    now = T0 + 1000;
    expect(await flow.take(hold('rate', 'r2', limits), 30_000, 'IO/r2')).toEqual({ kind: 'new' });
    now = T0 + 2000;
    expect(await flow.take(hold('rate', 'r3', limits), 30_000, 'IO/r3')).toEqual({ kind: 'rate', waiting: 1, at: new Date(T0 + 60_000) });
    expect(await flow.take(hold('rate', 'r4', limits), 30_000, 'IO/r4')).toEqual({ kind: 'rate', waiting: 2, at: new Date(T0 + 61_000) });
    expect(await flow.take(hold('rate', 'r5', limits), 30_000, 'IO/r5')).toEqual({ kind: 'rate', waiting: 3, at: new Date(T0 + 120_000) });
    // Running places do not limit a key with no maxConcurrent, and their release wakes no one.
    const h1 = hold('rate', 'r1', limits);
    expect(await flow.release('acme', h1.limits, h1, { began: true, wake: true })).toBeNull();
    now = T0 + 60_000;
    expect(await flow.take(hold('rate', 'r3', limits), 30_000, 'IO/r3')).toEqual({ kind: 'new' });
  });

  it('gives back the start of an attempt that never began, and a second attempt of one execution is a start of its own', async () => {
    const limits = { maxPerMinute: 1 };
    now = T0;
    const first = hold('given-back', 'g1', limits);
    await flow.take(first, 30_000, 'IO/g1');
    await flow.release('acme', first.limits, first, { began: false, wake: true });
    expect(await flow.take(hold('given-back', 'g2', limits), 30_000, 'IO/g2')).toEqual({ kind: 'new' });
    const g2 = hold('given-back', 'g2', limits);
    await flow.release('acme', g2.limits, g2, { began: true, wake: true });
    expect(await flow.take(hold('given-back', 'g2', limits, 2), 30_000, 'IO/g2')).toMatchObject({ kind: 'rate' });
  });
});
