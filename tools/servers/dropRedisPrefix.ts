import type { Redis } from 'ioredis';

/** Deletes every key under a Redis prefix (a benchmark's or a test's), scanned in pages (KEYS would block a shared Redis). Uses the caller's connection. */
export async function dropRedisPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
}
