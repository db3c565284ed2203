import type { AnyBulkWriteOperation, Db, ObjectId } from 'mongodb';
import { RUNNING_SINCE, WAITING_SINCE, type ExecutionDoc, type ExecutionStatus, type OverdueSince } from '../domain/execution.js';
import type { JobDoc, JobStatus } from '../domain/job.js';
import { bulkUpdate } from './bulkUpdates.js';
import { collections, type Collections } from './collections.js';
import { insertNew } from './insertNew.js';
import { rewriteSkips, type SkipRewrite } from './skipRewrites.js';
import { cancelWaiting, type CancelledExecution, type WaitingSelection } from './waitingCancels.js';

export interface SchedulerStoreOptions {
  /** Send update statements each as its own command (bulkUpdates.ts): true for FerretDB, false for MongoDB. Default true, safe on both. */
  updatesOneByOne?: boolean;
  /**
   * Filter the time bounds of reconcile's scans here, sending MongoDB only one status equality per
   * query: FerretDB 1.x pushes only equalities down to PostgreSQL and evaluates a range or `$or` in
   * Go over every execution, which reconcile's every pass then pays. True for FerretDB, false for
   * MongoDB (whose `reconcile` index serves the range). Default false.
   */
  equalityFiltersOnly?: boolean;
}

/** A compare-and-set advance of a job's schedule: applied only if `scheduleCursor` still equals `expected`. */
export interface JobAdvance {
  jobId: ObjectId;
  /** The version the pass read: a lifecycle change bumps it, so a stale pass cannot overwrite the new schedule. */
  version: number;
  expected: Date | null;
  scheduleCursor: Date | null;
  status: JobStatus;
  fencingToken: number;
}

/**
 * The scheduler's cross-tenant queries (the one place that reads across tenants, on the due-time
 * index). Writes are batched: one round trip per batch, never one per occurrence.
 */
export class SchedulerStore {
  private readonly c: Collections;
  private readonly oneByOne: boolean;
  private readonly equalityOnly: boolean;

  constructor(db: Db, options: SchedulerStoreOptions = {}) {
    this.c = collections(db);
    this.oneByOne = options.updatesOneByOne ?? true;
    this.equalityOnly = options.equalityFiltersOnly ?? false;
  }

  /**
   * The jobs with these ids (any tenant; absent ones were deleted), each looked up by `_id`: FerretDB
   * answers `_id: {$in}` by reading the whole collection, an `_id` equality from its index.
   */
  async findJobsByIds(ids: ObjectId[]): Promise<JobDoc[]> {
    const rows = await Promise.all(ids.map((_id) => this.c.jobs.findOne({ _id })));
    return rows.filter((j): j is JobDoc => j !== null);
  }

  /**
   * Every ACTIVE job's id and schedule cursor, streamed (the due index's rebuild). One cursor for
   * the whole read: FerretDB holds a pooled PostgreSQL connection for it until it is exhausted.
   */
  async *activeCursors(): AsyncIterable<{ jobId: ObjectId; at: Date }> {
    const cursor = this.c.jobs.find({ status: 'ACTIVE' }, { projection: { _id: 1, scheduleCursor: 1 } }).batchSize(5000);
    for await (const job of cursor) if (job.scheduleCursor) yield { jobId: job._id, at: job.scheduleCursor };
  }

  /**
   * Inserts executions, skipping occurrences that already exist (unique occurrence key). Returns the
   * ones this call inserted; the existing executions of the occurrences it skipped; and of those,
   * the ones still waiting to start, SCHEDULED or QUEUED (left by a crash before their queue entry
   * was added, by another pass under way, or put back in SCHEDULED by resumeJob/updateJob).
   */
  async insertExecutions(
    docs: ExecutionDoc[],
  ): Promise<{ inserted: ExecutionDoc[]; existing: ExecutionDoc[]; leftBehind: ExecutionDoc[] }> {
    if (docs.length === 0) return { inserted: [], existing: [], leftBehind: [] };
    const failed = await insertNew(this.c.executions, docs);
    const inserted = docs.filter((_, i) => !failed.has(i));
    if (failed.size === 0) return { inserted, existing: [], leftBehind: [] };
    const duplicates = docs.filter((_, i) => failed.has(i));
    const existing = await this.findOccurrences(duplicates);
    return { inserted, existing, leftBehind: existing.filter((e) => e.status === 'SCHEDULED' || e.status === 'QUEUED') };
  }

  /** Writes SKIPPED budget records cut down by a pass whose job changed under it (skipRewrites.ts). */
  async rewriteSkips(rewrites: readonly SkipRewrite[], now: Date): Promise<void> {
    if (rewrites.length > 0) await rewriteSkips(this.c.executions, rewrites, now, this.oneByOne);
  }

  /**
   * The executions of these occurrences (a pass repeated after a crash, an outage or by a second
   * leader). One `$or` read on MongoDB, from the occurrence index; on FerretDB, which evaluates an
   * `$or` in Go over the whole collection (12 s in the chaos run, holding up the sweep), one
   * equality look-up each.
   */
  private async findOccurrences(docs: Pick<ExecutionDoc, 'tenantId' | 'occurrenceKey'>[]): Promise<ExecutionDoc[]> {
    const keys = docs.map((d) => ({ tenantId: d.tenantId, occurrenceKey: d.occurrenceKey }));
    if (!this.equalityOnly) return this.c.executions.find({ $or: keys }).toArray();
    const rows = await Promise.all(keys.map((key) => this.c.executions.findOne(key)));
    return rows.filter((r): r is ExecutionDoc => r !== null);
  }

  /**
   * `from` → `to` (the transition's SCHEDULED → QUEUED) for the given executions, setting `queuedAt`
   * (a compare-and-set on the status). One statement per execution, by `_id`: an `_id: {$in}` filter
   * makes FerretDB read the whole executions collection.
   */
  async markQueued(ids: ObjectId[], from: ExecutionStatus, to: ExecutionStatus, now: Date): Promise<void> {
    const ops: AnyBulkWriteOperation<ExecutionDoc>[] = ids.map((_id) => ({
      updateOne: { filter: { _id, status: from }, update: { $set: { status: to, queuedAt: now, updatedAt: now } } },
    }));
    await bulkUpdate(this.c.executions, ops, this.oneByOne);
  }

  /**
   * Each job's scheduleCursor moved on with a compare-and-set on its version and old cursor; returns
   * whether each advance landed, in order (null: some did not, and MongoDB's one bulk command cannot
   * say which).
   */
  async advanceJobs(advances: JobAdvance[], now: Date): Promise<boolean[] | null> {
    if (advances.length === 0) return [];
    const ops: AnyBulkWriteOperation<JobDoc>[] = advances.map((a) => ({
      updateOne: {
        filter: { _id: a.jobId, version: a.version, scheduleCursor: a.expected },
        update: { $set: { scheduleCursor: a.scheduleCursor, status: a.status, updatedAt: now, fencingToken: a.fencingToken } },
      },
    }));
    return (await bulkUpdate(this.c.jobs, ops, this.oneByOne)).matched;
  }

  /** The current version, status and cursor of each job (absent when the job was deleted), each by `_id` (see findJobsByIds). */
  async jobStates(ids: ObjectId[]): Promise<Map<string, Pick<JobDoc, 'version' | 'status' | 'scheduleCursor'>>> {
    const projection = { version: 1, status: 1, scheduleCursor: 1 };
    const rows = await Promise.all(ids.map((_id) => this.c.jobs.findOne({ _id }, { projection })));
    return new Map(rows.filter((r) => r !== null).map((r) => [r._id.toHexString(), r]));
  }

  /** Cancels the executions `selection` picks, of any tenant (store/waitingCancels.ts): moves them to `to`, the transition's status. */
  async cancelWaiting(selection: WaitingSelection, to: ExecutionStatus, reason: string, now: Date): Promise<CancelledExecution[]> {
    return cancelWaiting(this.c.executions, selection, to, reason, now);
  }

  /**
   * Executions that should be in the queue but may not be (Redis lost them, or a crash came between
   * steps): waiting ones past their time, and RUNNING ones past their attempt's deadline.
   */
  async findStranded(olderThan: Date, limit: number): Promise<ExecutionDoc[]> {
    return this.findAny([...WAITING_SINCE, RUNNING_SINCE], olderThan, limit);
  }

  /** Executions waiting for the queue (SCHEDULED, QUEUED, or RETRYING) that are due before `before`. */
  async findWaiting(before: Date, limit: number): Promise<ExecutionDoc[]> {
    return this.findAny(WAITING_SINCE, before, limit);
  }

  /** Up to `limit` executions in one of the statuses whose time field is before `before`. */
  private async findAny(alternatives: readonly OverdueSince[], before: Date, limit: number): Promise<ExecutionDoc[]> {
    if (!this.equalityOnly) {
      const $or = alternatives.map((a) => ({ status: a.status, [a.field]: { $lt: before } }));
      return this.c.executions.find({ $or }).limit(limit).batchSize(limit).toArray();
    }
    const found: ExecutionDoc[] = [];
    for (const a of alternatives) {
      if (found.length >= limit) break;
      for await (const e of this.c.executions.find({ status: a.status }).batchSize(1000)) {
        const at = e[a.field];
        if (at && at < before) found.push(e);
        if (found.length >= limit) break;
      }
    }
    return found;
  }
}
