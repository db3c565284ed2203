import type { AnyBulkWriteOperation, Db, ObjectId } from 'mongodb';
import { RUNNABLE_STATUSES, type ExecutionDoc, type UnstartedEndStatus } from '../domain/execution.js';
import { crashedFields, type UnwrittenHolder } from '../domain/attemptEnd.js';
import type { Clock } from '../clock.js';
import { GroupCommit } from './groupCommit.js';
import type { JobDoc } from '../domain/job.js';
import { collections, type Collections } from './collections.js';
import { bulkUpdate } from './bulkUpdates.js';
import { AttemptStarts, type ClaimRequest } from './attemptStarts.js';
import { AttemptEnds, type EndRequest, type EndResult } from './attemptEnds.js';

export type { ClaimRequest } from './attemptStarts.js';
export type { EndRequest, EndResult, UnwrittenStart } from './attemptEnds.js';

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
    const starts = new AttemptStarts(this.c, this.oneByOne);
    const ends = new AttemptEnds(this.c, this.oneByOne);
    this.claims = new GroupCommit((batch) => starts.writeClaims(batch, this.clock()), { windowMs });
    this.ends = new GroupCommit((batch) => ends.writeEnds(batch, this.clock()), { windowMs });
  }

  /** The execution when it can still start (SCHEDULED, QUEUED, RETRYING) or is RUNNING, else null. */
  async findRunnable(id: ObjectId): Promise<ExecutionDoc | null> {
    const current = await this.c.executions.findOne({ _id: id });
    return current && RUNNABLE_STATUSES.includes(current.status) ? current : null;
  }

  /**
   * Records a lost attempt as CRASHED (its worker disappeared) and makes the execution RETRYING, due
   * now, or FAILED when that was its last attempt: the RUNNING attempt of `current`, or, when its start
   * never reached MongoDB (`unwritten`, read from the Redis attempt claim), the attempt after
   * `current.attempt`, recorded whole. A compare-and-set on status and attempt; null when it changed meanwhile.
   */
  async recordCrash(current: ExecutionDoc, now: Date, unwritten: UnwrittenHolder | null = null): Promise<ExecutionDoc | null> {
    return this.c.executions.findOneAndUpdate(
      { _id: current._id, status: current.status, attempt: current.attempt },
      { $set: crashedFields(current, now, unwritten) },
      { returnDocument: 'after' },
    );
  }

  /**
   * Writes an attempt's start (docs/architecture.md, "The life of an occurrence", step 4: the claim) without reading the execution
   * first: RUNNING with attempt `from.attempt + 1` if it still has `from`'s status and attempts, else
   * not claimed (cancelled, finished, or the queue entry's picture was stale). Group-committed.
   */
  claim(request: ClaimRequest): Promise<{ claimed: boolean }> {
    return this.claims.submit(request);
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
    status: UnstartedEndStatus,
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
