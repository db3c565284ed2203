import type { ExecutionMessage } from '../queue/queueEntry.js';
import type { RedisClient } from '../redis/redisClient.js';
import { errorMessage, type Logger } from '../logger.js';
import type { AlertEvaluator, OverdueEntry } from './alertEvaluator.js';

/** BullMQ scores a delayed entry `due ms * 0x1000 + a counter` (its getDelayedScore.lua). */
const SCORE_PER_MS = 0x1000;
/** An entry is looked at once it is this late: an idle worker starts one within milliseconds of its time. */
const LATE_AFTER_MS = 1000;

export interface OverdueCheckOptions {
  /** Entries read per queue per pass (the rest are read by the next passes). */
  batch: number;
  /** Entries watched at most (late, with an OVERDUE rule, not yet past its threshold); beyond it the newest are not watched. */
  maxWatched: number;
}

/** A late entry of a job with an OVERDUE rule, waiting to pass the rule's threshold. */
interface Watched extends OverdueEntry {
  queue: string;
  entryId: string;
  alertAt: number;
}

/**
 * The leader's overdue check: finds executions due and not started (their queue entry still in
 * BullMQ's delayed set, which only a worker's fetch moves on: with the workers down, every due
 * entry stays there, scored by its due time). Each pass reads, per queue shard, only the entries
 * that became late since the last pass (a bounded ZRANGEBYSCORE from where the last one stopped),
 * keeps those whose job has an OVERDUE rule until they pass its threshold, then raises OVERDUE for
 * the ones still waiting (ZSCORE). Its cost follows the entries due (late ones only: on time, a
 * worker took them), never the jobs stored. A new leader starts again from the oldest entry.
 * Entries a worker moved to the wait list but did not start (every slot busy) are not looked at.
 */
export class OverdueCheck {
  /** Per queue: the last score read, and the ids read at that score. */
  private readonly checkedUpTo = new Map<string, { score: number; seen: Set<string> }>();
  private watched: Watched[] = [];

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly queues: readonly string[],
    private readonly evaluator: Pick<AlertEvaluator, 'overdue' | 'overdueThresholdMs'>,
    private readonly logger: Logger,
    private readonly options: OverdueCheckOptions = { batch: 1000, maxWatched: 100_000 },
  ) {}

  /** Forgets where the passes got to (this process stopped leading). */
  reset(): void {
    this.checkedUpTo.clear();
    this.watched = [];
  }

  /** One pass at `now`: what it read and how many entries it found overdue. */
  async check(now: Date): Promise<{ read: number; overdue: number }> {
    let read = 0;
    for (const queue of this.queues) read += await this.readLate(queue, now);
    const due = this.watched.filter((w) => w.alertAt <= now.getTime());
    this.watched = this.watched.filter((w) => w.alertAt > now.getTime());
    if (due.length === 0) return { read, overdue: 0 };
    const waiting = (
      await Promise.all(
        this.queues.map((queue) =>
          this.stillDelayed(
            queue,
            due.filter((w) => w.queue === queue),
          ),
        ),
      )
    ).flat();
    await Promise.all(
      waiting.map(({ tenantId, jobId, executionId, dueAt }) => this.evaluator.overdue({ tenantId, jobId, executionId, dueAt }, now)),
    );
    return { read, overdue: waiting.length };
  }

  /** Those of `watched` (entries of `queue`) still in its delayed set: one pipeline per queue, whose keys share its slot. */
  private async stillDelayed(queue: string, watched: Watched[]): Promise<Watched[]> {
    if (watched.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const w of watched) pipeline.zscore(this.delayedKey(queue), w.entryId);
    const found = (await pipeline.exec()) ?? [];
    return watched.filter((_, i) => found[i]?.[1] !== null && found[i]?.[1] !== undefined);
  }

  private delayedKey(queue: string): string {
    return `${this.prefix}:${queue}:delayed`;
  }

  /** Reads the queue's entries that became late since the last pass and watches those of jobs with an OVERDUE rule. */
  private async readLate(queue: string, now: Date): Promise<number> {
    // From the last score read, inclusive (entries may share a score), skipping the ids read there already.
    const from = this.checkedUpTo.get(queue);
    const max = (now.getTime() - LATE_AFTER_MS) * SCORE_PER_MS + (SCORE_PER_MS - 1);
    const limit = this.options.batch + (from?.seen.size ?? 0);
    const raw = await this.redis.zrangebyscore(this.delayedKey(queue), from ? from.score : '-inf', max, 'WITHSCORES', 'LIMIT', 0, limit);
    const read: { id: string; score: number }[] = [];
    for (let i = 0; i < raw.length; i += 2) {
      const score = Number(raw[i + 1]);
      if (!(from && score === from.score && from.seen.has(raw[i]))) read.push({ id: raw[i], score });
    }
    if (raw.length / 2 < limit) this.checkedUpTo.set(queue, { score: max, seen: new Set() });
    else {
      const last = read.length > 0 ? read[read.length - 1].score : from!.score;
      const seen = new Set(read.filter((r) => r.score === last).map((r) => r.id));
      if (from && from.score === last) for (const id of from.seen) seen.add(id);
      this.checkedUpTo.set(queue, { score: last, seen });
    }
    const count = read.length;
    if (count === 0) return 0;
    const ids = read.map((r) => r.id);
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hget(`${this.prefix}:${queue}:${id}`, 'data');
    const data = (await pipeline.exec()) ?? [];
    for (let i = 0; i < count; i++) {
      const message = parse(data[i]?.[1]);
      if (!message?.run) continue;
      const entry = {
        tenantId: message.tenantId,
        jobId: message.run.jobId,
        executionId: message.executionId,
        dueAt: new Date(Math.floor(read[i].score / SCORE_PER_MS)),
      };
      const thresholdMs = await this.evaluator.overdueThresholdMs(entry.tenantId, entry.jobId).catch((error: unknown) => {
        this.logger.warn('could not read alert rules for the overdue check', { tenantId: entry.tenantId, error: errorMessage(error) });
        return null;
      });
      if (thresholdMs === null || this.watched.length >= this.options.maxWatched) continue;
      this.watched.push({ ...entry, queue, entryId: ids[i], alertAt: entry.dueAt.getTime() + thresholdMs });
    }
    return count;
  }
}

function parse(value: unknown): ExecutionMessage | null {
  if (typeof value !== 'string') return null;
  try {
    return JSON.parse(value) as ExecutionMessage;
  } catch {
    return null;
  }
}
