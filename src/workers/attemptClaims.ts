import type { RedisClient } from '../redis/redisClient.js';

/**
 * Claims only have to outlast the compare-and-set they guard (a MongoDB operation fails after the
 * 15 s socket timeout): once RUNNING, duplicates are dropped anyway. A worker killed between the
 * claim and the compare-and-set leaves the claim behind; short-lived, it blocks the execution's
 * redeliveries for seconds, not the ten minutes it used to (a chaos run found one stuck QUEUED).
 */
const CLAIM_TTL_MS = 30_000;
const TAKEOVER_CLAIM_TTL_MS = 30_000;

/**
 * One claim per execution attempt in Redis (`SET NX`), taken before the MongoDB compare-and-set
 * that starts the attempt. On MongoDB that compare-and-set alone is enough; FerretDB 1.24 applies
 * an update's filter before rewriting the document by `_id` only, so two workers could both win
 * it. The Redis claim keeps a duplicate delivery from running the attempt twice there. Uses the
 * caller's Redis connection.
 */
export class AttemptClaims {
  constructor(private readonly redis: RedisClient, private readonly prefix: string) {}

  private key(executionId: string, attempt: number): string {
    return `${this.prefix}:claim:${executionId}:${attempt}`;
  }

  /** True for the first caller per (execution, attempt number). */
  async take(executionId: string, attempt: number): Promise<boolean> {
    return (await this.redis.set(this.key(executionId, attempt), '1', 'PX', CLAIM_TTL_MS, 'NX')) === 'OK';
  }

  /**
   * True for the first caller per lost attempt: several deliveries can find one dead worker's attempt
   * (the stalled check, reconcile, the worker itself) and only one may record it CRASHED. On FerretDB
   * two such compare-and-sets could both pass, and the later rewrite would undo the next attempt
   * the first one started. Short-lived, so a taker that dies lets another try soon.
   */
  async takeTakeover(executionId: string, attempt: number): Promise<boolean> {
    return (await this.redis.set(`${this.key(executionId, attempt)}:takeover`, '1', 'PX', TAKEOVER_CLAIM_TTL_MS, 'NX')) === 'OK';
  }

  /** Gives a claim back when the attempt did not start after all. */
  async drop(executionId: string, attempt: number): Promise<void> {
    await this.redis.del(this.key(executionId, attempt));
  }
}
