import type { RedisClient } from '../redis/redisClient.js';

/** A takeover claim only has to outlast the compare-and-set recording the lost attempt (15 s socket timeout at most). */
const TAKEOVER_CLAIM_TTL_MS = 30_000;

/** Who started an attempt and when: what a takeover records when the attempt never reached MongoDB. */
export interface ClaimHolder {
  workerId: string;
  startedAt: Date;
  /** When the attempt is overdue (start + timeout + queue lock, as a RUNNING execution's deadlineAt): past it, its worker is gone. */
  deadlineAt: Date;
}

/** Whether the attempt a claim holds is past its deadline: it cannot still be running, so its worker is gone. */
export function pastDeadline(holder: ClaimHolder, now: Date): boolean {
  return holder.deadlineAt <= now;
}

/**
 * One claim per execution attempt in Redis (`SET NX`), taken before the attempt starts. It keeps a
 * duplicate delivery from running the attempt twice (FerretDB 1.24 applies an update's filter before
 * rewriting the document by `_id` only, so two workers could both pass a MongoDB compare-and-set),
 * and it is the record of the attempt's start until that start is written to MongoDB (the deferred
 * claim, docs/architecture.md): it holds the worker and the start, and lives until the attempt can no
 * longer be running and a takeover has had time to find a dead holder. Uses the caller's Redis connection.
 */
export class AttemptClaims {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  private key(executionId: string, attempt: number): string {
    return `${this.prefix}:claim:${executionId}:${attempt}`;
  }

  /** True for the first caller per (execution, attempt number); the claim lasts `ttlMs`. */
  async take(executionId: string, attempt: number, holder: ClaimHolder, ttlMs: number): Promise<boolean> {
    const value = JSON.stringify({
      workerId: holder.workerId,
      startedAt: holder.startedAt.getTime(),
      deadlineAt: holder.deadlineAt.getTime(),
    });
    return (await this.redis.set(this.key(executionId, attempt), value, 'PX', ttlMs, 'NX')) === 'OK';
  }

  /** Who holds the claim of this attempt; null when nobody does (never taken, expired, or Redis lost it). */
  async holder(executionId: string, attempt: number): Promise<ClaimHolder | null> {
    const raw = await this.redis.get(this.key(executionId, attempt));
    if (!raw) return null;
    try {
      const parsed = JSON.parse(raw) as { workerId?: unknown; startedAt?: unknown; deadlineAt?: unknown };
      if (typeof parsed.workerId === 'string' && typeof parsed.startedAt === 'number' && typeof parsed.deadlineAt === 'number') {
        return { workerId: parsed.workerId, startedAt: new Date(parsed.startedAt), deadlineAt: new Date(parsed.deadlineAt) };
      }
    } catch {
      // A claim written before claims held their holder ('1'): nothing to record from it.
    }
    return null;
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
