import type { Redis } from 'ioredis';

/** Claims outlive any attempt by far; they only have to outlast duplicate deliveries. */
const CLAIM_TTL_MS = 24 * 3600_000;

/**
 * One claim per execution attempt in Redis (`SET NX`), taken before the MongoDB compare-and-set
 * that starts the attempt. On MongoDB that compare-and-set alone is enough; FerretDB 1.24 applies
 * an update's filter before rewriting the document by `_id` only, so two workers could both win
 * it. The Redis claim keeps a duplicate delivery from running the attempt twice there. Uses the
 * caller's Redis connection.
 */
export class AttemptClaims {
  constructor(private readonly redis: Redis, private readonly prefix: string) {}

  /** True for the first caller per (execution, attempt number). */
  async take(executionId: string, attempt: number): Promise<boolean> {
    return (await this.redis.set(`${this.prefix}:claim:${executionId}:${attempt}`, '1', 'PX', CLAIM_TTL_MS, 'NX')) === 'OK';
  }
}
