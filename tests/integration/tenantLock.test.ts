import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { TenantLock } from '../../src/quotas/tenantLock.js';
import { createLogger } from '../../src/logger.js';
import { REDIS_URL } from '../support/env.js';
import { uniqueName } from '../support/harness.js';
import { dropRedisPrefix } from '../../tools/servers/dropRedisPrefix.js';

/** Counts the SET commands (the lock's attempts) a real Redis connection sends. */
function countSets(redis: Redis): { sets: number } {
  const counter = { sets: 0 };
  const set = redis.set.bind(redis) as (...args: unknown[]) => unknown;
  redis.set = ((...args: unknown[]) => {
    counter.sets++;
    return set(...args);
  }) as Redis['set'];
  return counter;
}

describe('TenantLock', () => {
  let redis: Redis;
  let counter: { sets: number };
  const prefix = uniqueName('lock');

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
    counter = countSets(redis);
  });
  afterAll(async () => {
    await dropRedisPrefix(redis, prefix);
    await redis.quit();
  });

  const lock = (options = {}) => new TenantLock(redis, prefix, uniqueName('op'), createLogger({}, 'silent'), options);

  it("runs one tenant's callers one at a time, and each asks Redis once instead of polling", async () => {
    const l = lock();
    let inside = 0;
    let most = 0;
    const order: number[] = [];
    counter.sets = 0;
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        l.run('t1', async () => {
          most = Math.max(most, ++inside);
          await sleep(5);
          order.push(i);
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
    // In the order they came: each waited behind the others of this process, not in a Redis race.
    expect(order).toEqual(Array.from({ length: 30 }, (_, i) => i));
    // One SET each (the lock is free when its turn comes); polling would send dozens.
    expect(counter.sets).toBe(30);
  });

  it('does not make other tenants wait', async () => {
    const l = lock();
    let release!: () => void;
    const held = l.run('slow', () => new Promise<void>((resolve) => (release = resolve)));
    await expect(l.run('other', async () => 'ran')).resolves.toBe('ran');
    release();
    await held;
  });

  it('lets a caller behind a stuck one run after waitMs, and takes the lock again once it is released', async () => {
    const name = uniqueName('op');
    const l = new TenantLock(redis, prefix, name, createLogger({}, 'silent'), { waitMs: 300, ttlMs: 10_000 });
    const key = `${prefix}:lock:${name}:t2`;
    let release!: () => void;
    const stuck = l.run('t2', () => new Promise<void>((resolve) => (release = resolve)));
    const started = Date.now();
    await expect(l.run('t2', async () => Date.now() - started)).resolves.toBeGreaterThanOrEqual(290);
    const stuckToken = await redis.get(key);
    release();
    await stuck;
    // The stuck holder's release is not awaited: the next caller's SET follows it on the same connection.
    const token = await l.run('t2', () => redis.get(key));
    expect(token).toEqual(expect.any(String));
    expect(token).not.toBe(stuckToken);
  });

  it('also waits for a holder in another process (the Redis key), then takes the lock', async () => {
    const name = uniqueName('op');
    const here = new TenantLock(redis, prefix, name, createLogger({}, 'silent'));
    const elsewhere = new TenantLock(redis, prefix, name, createLogger({}, 'silent'));
    let release!: () => void;
    let otherDone = false;
    const held = elsewhere.run('t3', () => new Promise<void>((resolve) => (release = resolve)).then(() => void (otherDone = true)));
    const waiting = here.run('t3', async () => otherDone);
    await sleep(100);
    release();
    await held;
    await expect(waiting).resolves.toBe(true);
  });
});
