import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { ownedKey } from '../../src/redis/ownedKey.js';
import { REDIS_URL } from '../support/env.js';
import { uniqueName } from '../support/harness.js';
import { dropRedisPrefix } from '../../tools/servers/dropRedisPrefix.js';

describe('ownedKey', () => {
  let redis: Redis;
  const prefix = uniqueName('owned');

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await dropRedisPrefix(redis, prefix);
    await redis.quit();
  });

  it('renews and releases the key only for the holder it names', async () => {
    const key = `${prefix}:lease`;
    await redis.set(key, 'a', 'PX', 1000, 'NX');

    expect(await ownedKey.renew(redis, key, 'b', 60_000)).toBe(false);
    expect(await redis.pttl(key)).toBeLessThanOrEqual(1000);
    expect(await ownedKey.renew(redis, key, 'a', 60_000)).toBe(true);
    expect(await redis.pttl(key)).toBeGreaterThan(1000);

    await ownedKey.release(redis, key, 'b');
    expect(await redis.get(key)).toBe('a');
    await ownedKey.release(redis, key, 'a');
    expect(await redis.get(key)).toBeNull();
  });

  it('does not renew a key that lapsed', async () => {
    expect(await ownedKey.renew(redis, `${prefix}:gone`, 'a', 60_000)).toBe(false);
    expect(await redis.exists(`${prefix}:gone`)).toBe(0);
  });
});
