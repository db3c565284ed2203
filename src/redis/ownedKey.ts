import { readFileSync } from 'node:fs';
import type { RedisClient } from './redisClient.js';

const script = (name: string) => readFileSync(new URL(`./lua/${name}.lua`, import.meta.url), 'utf8');
const RENEW = script('renewOwnedKey');
const RELEASE = script('releaseOwnedKey');

/**
 * A key whose value names its holder (a lease or lock taken with SET NX PX): renewed and released
 * only by that holder, so one whose TTL ran out never extends or frees the next holder's. Shared by
 * the leader lease, the tenant locks and the bulk operations' leases.
 */
export const ownedKey = {
  /** True when renewed; false when the key is no longer `holder`'s (it lapsed, maybe taken by another). */
  async renew(redis: RedisClient, key: string, holder: string, ttlMs: number): Promise<boolean> {
    return Number(await redis.eval(RENEW, 1, key, holder, ttlMs)) === 1;
  },

  /** Deletes the key if it is still `holder`'s. */
  async release(redis: RedisClient, key: string, holder: string): Promise<void> {
    await redis.eval(RELEASE, 1, key, holder);
  },
};
