import type { AnyBulkWriteOperation, Db, ObjectId } from 'mongodb';
import {
  STARTABLE_STATUSES,
  attemptEndFields,
  executionEndFields,
  type AttemptDoc,
  type AttemptEnd,
  type ExecutionDoc,
  type ExecutionStatus,
} from '../domain/execution.js';
import type { Clock } from '../clock.js';
import { GroupCommit } from './groupCommit.js';
import type { JobDoc } from '../domain/job.js';
import { collections, type Collections } from './collections.js';
import { isMongoUnavailable } from './mongo.js';
import { bulkUpdate } from './bulkUpdates.js';

/** A claim: the execution, still as the worker expects it, becomes RUNNING with a new attempt. */
export interface ClaimRequest {
  id: ObjectId;
  /** What it must still be: its status and attempts started (a compare-and-set on both). */
  from: { status: ExecutionStatus; attempt: number };
  workerId: string;
  /** When the attempt started (it may have run for a while before its start is written). */
  startedAt: Date;
  /** How long after its start the attempt is overdue (its timeout plus the queue lock). */
  deadlineAfterMs: number;
}

/** An attempt whose start never reached MongoDB (the deferred claim): what the execution must still be, and the start. */
export interface UnwrittenStart {
  from: { status: ExecutionStatus; attempt: number };
  startedAt: Date;
  workerId: string;
}

/** An attempt's end: the execution's fields (decided by decideAttemptEnd) and the attempt's outcome. */
export interface EndRequest extends AttemptEnd {
  id: ObjectId;
  attempt: number;
  /** Set when the attempt's start was never written: the end records it too, as a compare-and-set on `from`. */
  start: UnwrittenStart | null;
}

/**
 * What an end did: `ended` when it ended the attempt; else `addedToCancelled` when the execution had
 * been cancelled while the attempt ran unwritten, and the attempt was added to it. `at` is the write's instant.
 */
export interface EndResult {
  ended: boolean;
  addedToCancelled: boolean;
  at: Date;
}

export interface RunStoreOptions {
  /** How long the first claim or end of a batch waits for others (group commit). Default 2 ms. */
  groupWindowMs?: number;
  /**
   * Send a batch's statements each as its own command (see bulkUpdates.ts): true for FerretDB,
   * false for MongoDB, which takes a batch as one command. Default true, safe on both.
   */
  updatesOneByOne?: boolean;
  /**
   * How often jobs' lastRunAt is written: each job's latest start since the last write, so a job
   * that runs every second costs one statement per this time, not one per run (60 such jobs were
   * 60 writes a second on FerretDB). lastRunAt lags its job's latest start by up to this. Default 5 s.
   */
  jobRunsEveryMs?: number;
}

/**
 * The worker's queries on executions, by id from the queue entry (the tenant is the execution's
 * own). Every state change is a compare-and-set, so a cancelled or finished execution is never
 * overwritten and a late duplicate delivery runs nothing. Claims and ends are group-committed: the
 * ones of many executions that arrive within a few milliseconds go out together (bulkUpdates.ts), and
 * each caller learns whether its own matched. Jobs' lastRunAt is written every `jobRunsEveryMs`; the
 * owner calls `close()` after the worker has stopped, which writes what is left.
 */
export class RunStore {
  private readonly c: Collections;
  private readonly claims: GroupCommit<ClaimRequest, { claimed: boolean }>;
  private readonly ends: GroupCommit<EndRequest, EndResult>;
  /** Jobs started since lastRunAt was last written, by tenant and job id: each one's latest start. */
  private jobRuns = new Map<string, { tenantId: string; jobId: ObjectId; at: Date }>();

  private readonly oneByOne: boolean;

  private readonly jobRunsEveryMs: number;

  private jobRunsTimer: NodeJS.Timeout | null = null;

  constructor(
    db: Db,
    private readonly clock: Clock,
    options: RunStoreOptions = {},
  ) {
    this.c = collections(db);
    this.oneByOne = options.updatesOneByOne ?? true;
    this.jobRunsEveryMs = options.jobRunsEveryMs ?? 5000;
    const windowMs = options.groupWindowMs ?? 2;
    this.claims = new GroupCommit((batch) => this.writeClaims(batch), { windowMs });
    this.ends = new GroupCommit((batch) => this.writeEnds(batch), { windowMs });
  }

  /** The execution when it can still start (SCHEDULED, QUEUED, RETRYING) or is RUNNING, else null. */
  async findRunnable(id: ObjectId): Promise<ExecutionDoc | null> {
    const current = await this.c.executions.findOne({ _id: id });
    return current && (STARTABLE_STATUSES.includes(current.status) || current.status === 'RUNNING') ? current : null;
  }

  /**
   * Records a lost attempt as CRASHED (its worker disappeared) and makes the execution RETRYING, due
   * now, or FAILED when that was its last attempt: the RUNNING attempt of `current`, or, when its start
   * never reached MongoDB (`unwritten`, read from the Redis attempt claim), the attempt after
   * `current.attempt`, recorded whole. A compare-and-set on status and attempt; null when it changed meanwhile.
   */
  async recordCrash(current: ExecutionDoc, now: Date, unwritten: Omit<UnwrittenStart, 'from'> | null = null): Promise<ExecutionDoc | null> {
    const error = 'the worker running this attempt disappeared; taken over after the visibility timeout';
    const number = unwritten ? current.attempt + 1 : current.attempt;
    const attempts = unwritten
      ? [
          ...current.attempts,
          {
            number,
            startedAt: unwritten.startedAt,
            finishedAt: now,
            outcome: 'CRASHED' as const,
            error,
            httpStatus: null,
            workerId: unwritten.workerId,
          },
        ]
      : current.attempts.map((a) => (a.number === number ? { ...a, finishedAt: now, outcome: 'CRASHED' as const, error } : a));
    const last = number >= current.maxAttempts;
    return this.c.executions.findOneAndUpdate(
      { _id: current._id, status: current.status, attempt: current.attempt },
      {
        $set: {
          attempts,
          attempt: number,
          status: last ? 'FAILED' : 'RETRYING',
          nextAttemptAt: last ? null : now,
          finishedAt: last ? now : null,
          error,
          updatedAt: now,
          ...(unwritten && number === 1 ? { startedAt: unwritten.startedAt } : {}),
        },
      },
      { returnDocument: 'after' },
    );
  }

  /**
   * Writes an attempt's start (docs/architecture.md step 4, the claim) without reading the execution
   * first: RUNNING with attempt `from.attempt + 1` if it still has `from`'s status and attempts, else
   * not claimed (cancelled, finished, or the queue entry's picture was stale). Group-committed.
   */
  claim(request: ClaimRequest): Promise<{ claimed: boolean }> {
    return this.claims.submit(request);
  }

  private async writeClaims(requests: ClaimRequest[]): Promise<{ claimed: boolean }[]> {
    const now = this.clock();
    const ops: AnyBulkWriteOperation<ExecutionDoc>[] = requests.map((r) => {
      const attempt: AttemptDoc = {
        number: r.from.attempt + 1,
        startedAt: r.startedAt,
        finishedAt: null,
        outcome: null,
        error: null,
        httpStatus: null,
        workerId: r.workerId,
      };
      return {
        updateOne: {
          filter: { _id: r.id, status: r.from.status, attempt: r.from.attempt },
          update: {
            $set: {
              status: 'RUNNING',
              deadlineAt: new Date(r.startedAt.getTime() + r.deadlineAfterMs),
              attempt: attempt.number,
              nextAttemptAt: null,
              updatedAt: now,
              // The execution's start is its first attempt's.
              ...(attempt.number === 1 ? { startedAt: r.startedAt } : {}),
            },
            $push: { attempts: attempt },
          },
        },
      };
    });
    let all = false;
    try {
      all = (await bulkUpdate(this.c.executions, ops, this.oneByOne)).matchedCount === ops.length;
    } catch (error) {
      if (isMongoUnavailable(error)) throw error;
    }
    if (all) return requests.map(() => ({ claimed: true }));
    // Some did not match (or a statement failed): read back which of them are ours. Each claim of
    // (execution, attempt) is exclusive through the worker's Redis claim, so ours is recognisable.
    const found = await Promise.all(
      requests.map((r) => this.c.executions.findOne({ _id: r.id }, { projection: { status: 1, attempt: 1, attempts: 1 } })),
    );
    return found.map((doc, i) => {
      const mine = doc?.status === 'RUNNING' && doc.attempt === requests[i].from.attempt + 1 ? doc.attempts[doc.attempt - 1] : undefined;
      return { claimed: mine?.workerId === requests[i].workerId && mine.startedAt.getTime() === requests[i].startedAt.getTime() };
    });
  }

  /**
   * Ends the attempt `attempt`: the RUNNING one, or (`start` set) one whose start was never written,
   * recorded whole. Not ended when the execution changed meanwhile (e.g. cancelled); an unwritten
   * attempt is then still added to a CANCELLED execution's attempts, so every delivery is on record.
   * Group-committed: ends that write the same fields go out as one updateMany, all in one bulk; `at`
   * (finishedAt, updatedAt) is the batch's. Also matches its own earlier write, so a retry after
   * MongoDB applied a first try whose answer was lost still counts as ended.
   */
  endAttempt(request: EndRequest): Promise<EndResult> {
    return this.ends.submit(request);
  }

  /** The execution's fields an end sets, and the ended attempt's (by its slot in `attempts`): domain/execution.ts says which. */
  private endFields(r: EndRequest, now: Date): Record<string, unknown> {
    const slot = `attempts.${r.attempt - 1}`;
    return {
      ...executionEndFields(r, now),
      ...Object.fromEntries(Object.entries(attemptEndFields(r, now)).map(([field, value]) => [`${slot}.${field}`, value])),
    };
  }

  /** The attempt an end records whole when its start was never written. */
  private wholeAttempt(r: EndRequest & { start: UnwrittenStart }, now: Date): AttemptDoc {
    return { number: r.attempt, startedAt: r.start.startedAt, ...attemptEndFields(r, now), workerId: r.start.workerId };
  }

  /** An end whose start was never written: one statement, a compare-and-set on the state the start expected. */
  private unwrittenEnd(r: EndRequest & { start: UnwrittenStart }, now: Date): AnyBulkWriteOperation<ExecutionDoc> {
    return {
      updateOne: {
        filter: { _id: r.id, status: r.start.from.status, attempt: r.start.from.attempt },
        update: {
          $set: {
            ...executionEndFields(r, now),
            attempt: r.attempt,
            deadlineAt: null,
            ...(r.attempt === 1 ? { startedAt: r.start.startedAt } : {}),
          },
          $push: { attempts: this.wholeAttempt(r, now) },
        },
      },
    };
  }

  private async writeEnds(requests: EndRequest[]): Promise<EndResult[]> {
    const now = this.clock();
    const groups = new Map<string, { attempt: number; ids: ObjectId[]; set: Record<string, unknown> }>();
    const unwritten: AnyBulkWriteOperation<ExecutionDoc>[] = [];
    for (const r of requests) {
      if (hasUnwrittenStart(r)) {
        unwritten.push(this.unwrittenEnd(r, now));
        continue;
      }
      const set = this.endFields(r, now);
      const key = JSON.stringify(set);
      const group = groups.get(key);
      if (group) group.ids.push(r.id);
      else groups.set(key, { attempt: r.attempt, ids: [r.id], set });
    }
    // On FerretDB an `_id: {$in}` filter reads the whole collection (only `_id` equality has an
    // index there), so each end goes by `_id`; MongoDB takes one updateMany per group from its index.
    const ops = [...groups.values()].flatMap((g): AnyBulkWriteOperation<ExecutionDoc>[] =>
      g.ids.length === 1 || this.oneByOne
        ? g.ids.map((_id) => ({ updateOne: { filter: { _id, attempt: g.attempt, status: 'RUNNING' as const }, update: { $set: g.set } } }))
        : [{ updateMany: { filter: { _id: { $in: g.ids }, attempt: g.attempt, status: 'RUNNING' as const }, update: { $set: g.set } } }],
    );
    let all = false;
    try {
      const result = await bulkUpdate(this.c.executions, [...unwritten, ...ops], this.oneByOne);
      all = result.matchedCount === requests.length;
    } catch (error) {
      if (isMongoUnavailable(error)) throw error;
    }
    if (all) return requests.map(() => ({ ended: true, addedToCancelled: false, at: now }));
    // Some did not match: one at a time, each also matching the end it may have got from the bulk
    // (or, for an unwritten start, its own start written after all by a claim whose answer was lost:
    // its own attempt, never another worker's attempt of the same number).
    return Promise.all(
      requests.map(async (r) => {
        // The bulk may have failed before this statement ran: an unwritten start's own compare-and-set first.
        if (hasUnwrittenStart(r) && (await bulkUpdate(this.c.executions, [this.unwrittenEnd(r, now)], true)).matchedCount === 1) {
          return { ended: true, addedToCancelled: false, at: now };
        }
        const slot = `attempts.${r.attempt - 1}`;
        const own = hasUnwrittenStart(r) ? { [`${slot}.workerId`]: r.start.workerId, [`${slot}.startedAt`]: r.start.startedAt } : {};
        const result = await this.c.executions.updateOne(
          { _id: r.id, attempt: r.attempt, ...own, $or: [{ status: 'RUNNING' }, { status: r.status, [`${slot}.outcome`]: r.outcome }] },
          { $set: this.endFields(r, now) },
        );
        const ended = result.matchedCount === 1;
        const addedToCancelled = !ended && hasUnwrittenStart(r) && (await this.addToCancelled(r, now));
        return { ended, addedToCancelled, at: now };
      }),
    );
  }

  /** A cancel reached the execution while its attempt ran unwritten: the attempt still goes on its record. */
  private async addToCancelled(r: EndRequest & { start: UnwrittenStart }, now: Date): Promise<boolean> {
    const result = await this.c.executions.updateOne(
      { _id: r.id, status: 'CANCELLED', attempt: r.start.from.attempt },
      {
        $set: { attempt: r.attempt, updatedAt: now, ...(r.attempt === 1 ? { startedAt: r.start.startedAt } : {}) },
        $push: { attempts: this.wholeAttempt(r, now) },
      },
    );
    return result.matchedCount === 1;
  }

  /** Notes that the job started a run at `at`; written as the job's lastRunAt (never moving back) within `jobRunsEveryMs`. */
  noteJobRun(tenantId: string, jobId: ObjectId, at: Date): void {
    const key = `${tenantId}:${jobId.toHexString()}`;
    const known = this.jobRuns.get(key);
    if (!known || known.at < at) this.jobRuns.set(key, { tenantId, jobId, at });
    // A failed write is put back through here, so it is tried again a period later.
    this.jobRunsTimer ??= setTimeout(() => {
      this.jobRunsTimer = null;
      void this.writeJobRuns().catch(() => undefined);
    }, this.jobRunsEveryMs).unref();
  }

  /** Writes the lastRunAt still pending; the owner calls it once the worker has stopped. */
  async close(): Promise<void> {
    if (this.jobRunsTimer) clearTimeout(this.jobRunsTimer);
    this.jobRunsTimer = null;
    await this.writeJobRuns();
  }

  /** The jobs started since the last write, one statement each by `_id` (on MongoDB one bulk command); put back if it fails. */
  private async writeJobRuns(): Promise<void> {
    const runs = [...this.jobRuns.values()];
    if (runs.length === 0) return;
    this.jobRuns = new Map();
    try {
      const ops = runs.map((j): AnyBulkWriteOperation<JobDoc> => ({
        updateOne: { filter: { _id: j.jobId, tenantId: j.tenantId }, update: { $max: { lastRunAt: j.at } } },
      }));
      // Two at a time on FerretDB: a period's writes are not urgent, and all at once they filled the
      // driver's pool every 5 s, ahead of API requests' statements.
      await bulkUpdate(this.c.jobs, ops, this.oneByOne, 2);
    } catch (error) {
      for (const j of runs) this.noteJobRun(j.tenantId, j.jobId, j.at);
      throw error;
    }
  }

  /** Ends an execution that never started (SKIPPED or CANCELLED, with the reason); false when it changed meanwhile. */
  async endUnstarted(
    current: Pick<ExecutionDoc, '_id' | 'status' | 'attempt'>,
    status: 'SKIPPED' | 'CANCELLED',
    reason: string,
    now: Date,
  ): Promise<boolean> {
    const result = await this.c.executions.updateOne(
      { _id: current._id, status: current.status, attempt: current.attempt },
      { $set: { status, reason, finishedAt: now, nextAttemptAt: null, updatedAt: now } },
    );
    return result.matchedCount === 1;
  }

  /** The execution's own payload (a trigger's override; null = the job's); undefined when there is no such execution. */
  async findPayload(tenantId: string, id: ObjectId): Promise<string | null | undefined> {
    const found = await this.c.executions.findOne({ _id: id, tenantId }, { projection: { payloadJson: 1 } });
    return found ? found.payloadJson : undefined;
  }

  async findJob(tenantId: string, jobId: ObjectId): Promise<JobDoc | null> {
    return this.c.jobs.findOne({ _id: jobId, tenantId });
  }
}

function hasUnwrittenStart(r: EndRequest): r is EndRequest & { start: UnwrittenStart } {
  return r.start !== null;
}
