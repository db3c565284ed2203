import type { Db, ObjectId } from 'mongodb';
import { STARTABLE_STATUSES, type AttemptDoc, type ExecutionDoc } from '../domain/execution.js';
import type { JobDoc } from '../domain/job.js';
import { collections, type Collections } from './collections.js';

/** Fields a worker writes when an attempt ends. */
export type AttemptEnd = Partial<
  Pick<ExecutionDoc, 'status' | 'finishedAt' | 'nextAttemptAt' | 'error' | 'reason' | 'resultJson' | 'attempts'>
>;

/**
 * The worker's queries on one execution, by id from the queue entry (the tenant is the
 * execution's own). Every state change is a compare-and-set, so a cancelled or finished
 * execution is never overwritten and a late duplicate delivery runs nothing.
 */
export class RunStore {
  private readonly c: Collections;

  constructor(db: Db) {
    this.c = collections(db);
  }

  /** The execution when it can still start (SCHEDULED, QUEUED, RETRYING) or is RUNNING, else null. */
  async findRunnable(id: ObjectId): Promise<ExecutionDoc | null> {
    const current = await this.c.executions.findOne({ _id: id });
    return current && (STARTABLE_STATUSES.includes(current.status) || current.status === 'RUNNING') ? current : null;
  }

  /**
   * Records the running attempt of `current` as CRASHED (its worker lost the queue lock) and makes
   * the execution RETRYING, due now, or FAILED when that was its last attempt; a compare-and-set
   * on status and attempt, null when it changed meanwhile.
   */
  async recordCrash(current: ExecutionDoc, now: Date): Promise<ExecutionDoc | null> {
    const error = 'the worker running this attempt disappeared; taken over after the visibility timeout';
    const attempts = current.attempts.map((a) =>
      a.number === current.attempt ? { ...a, finishedAt: now, outcome: 'CRASHED' as const, error } : a,
    );
    const last = current.attempt >= current.maxAttempts;
    return this.c.executions.findOneAndUpdate(
      { _id: current._id, status: 'RUNNING', attempt: current.attempt },
      {
        $set: {
          attempts,
          status: last ? 'FAILED' : 'RETRYING',
          nextAttemptAt: last ? null : now,
          finishedAt: last ? now : null,
          error,
          updatedAt: now,
        },
      },
      { returnDocument: 'after' },
    );
  }

  /**
   * `current` (as read by findRunnable) → RUNNING with a new attempt: a compare-and-set on its
   * status and attempt count, null when it changed meanwhile (cancelled, or claimed elsewhere).
   */
  async claim(current: ExecutionDoc, workerId: string, now: Date, deadlineAt: Date): Promise<ExecutionDoc | null> {
    const attempt: AttemptDoc = {
      number: current.attempt + 1,
      startedAt: now,
      finishedAt: null,
      outcome: null,
      error: null,
      httpStatus: null,
      workerId,
    };
    return this.c.executions.findOneAndUpdate(
      { _id: current._id, status: current.status, attempt: current.attempt },
      {
        $set: {
          status: 'RUNNING',
          deadlineAt,
          startedAt: current.startedAt ?? now,
          attempt: attempt.number,
          nextAttemptAt: null,
          attempts: [...current.attempts, attempt],
          updatedAt: now,
        },
      },
      { returnDocument: 'after' },
    );
  }

  /** Ends an execution that never started (SKIPPED or CANCELLED, with the reason); false when it changed meanwhile. */
  async endUnstarted(current: ExecutionDoc, status: 'SKIPPED' | 'CANCELLED', reason: string, now: Date): Promise<boolean> {
    const result = await this.c.executions.updateOne(
      { _id: current._id, status: current.status, attempt: current.attempt },
      { $set: { status, reason, finishedAt: now, nextAttemptAt: null, updatedAt: now } },
    );
    return result.matchedCount === 1;
  }

  /** Ends the running attempt `attempt`; false when the execution changed meanwhile (e.g. cancelled). */
  async endAttempt(id: ObjectId, attempt: number, end: AttemptEnd, now: Date): Promise<boolean> {
    // Also matches its own earlier write (same status and `now`): a retry after MongoDB applied the
    // first try but its answer was lost (a paused server) must still count as ended.
    const result = await this.c.executions.updateOne(
      { _id: id, attempt, $or: [{ status: 'RUNNING' }, { status: end.status, updatedAt: now }] },
      { $set: { ...end, updatedAt: now } },
    );
    return result.matchedCount === 1;
  }

  async findJob(tenantId: string, jobId: ObjectId): Promise<JobDoc | null> {
    return this.c.jobs.findOne({ _id: jobId, tenantId });
  }

  async recordJobRun(tenantId: string, jobId: ObjectId, at: Date): Promise<void> {
    await this.c.jobs.updateOne({ _id: jobId, tenantId }, { $max: { lastRunAt: at } });
  }
}
