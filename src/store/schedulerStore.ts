import type { AnyBulkWriteOperation, Db, Filter, ObjectId } from 'mongodb';
import type { ExecutionDoc, ExecutionStatus } from '../domain/execution.js';
import type { JobDoc, JobStatus } from '../domain/job.js';
import { bulkUpdate } from './bulkUpdates.js';
import { collections, type Collections } from './collections.js';

const WRITE_CHUNK = 100;

export interface SchedulerStoreOptions {
  /** Send update statements each as its own command (bulkUpdates.ts): true for FerretDB, false for MongoDB. Default true, safe on both. */
  updatesOneByOne?: boolean;
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

  constructor(db: Db, options: SchedulerStoreOptions = {}) {
    this.c = collections(db);
    this.oneByOne = options.updatesOneByOne ?? true;
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
   * ones this call inserted, and the existing ones still in SCHEDULED (left by a crash, by another
   * pass that has not marked them QUEUED yet, or put back by resumeJob/updateJob).
   */
  async insertExecutions(docs: ExecutionDoc[]): Promise<{ inserted: ExecutionDoc[]; leftBehind: ExecutionDoc[] }> {
    if (docs.length === 0) return { inserted: [], leftBehind: [] };
    const failed = new Set<number>();
    // In chunks: one large insert on a busy FerretDB can outlast the socket timeout, and then the
    // whole pass fails again and again; a chunk that lands stays landed.
    for (let start = 0; start < docs.length; start += WRITE_CHUNK) {
      try {
        await this.c.executions.insertMany(docs.slice(start, start + WRITE_CHUNK), { ordered: false });
      } catch (error) {
        const writeErrors = (error as { writeErrors?: { index: number; code: number }[] | { index: number; code: number } }).writeErrors;
        const list = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [];
        if (list.length === 0 || list.some((e) => e.code !== 11000)) throw error;
        for (const e of list) failed.add(start + e.index);
      }
    }
    const inserted = docs.filter((_, i) => !failed.has(i));
    if (failed.size === 0) return { inserted, leftBehind: [] };
    const duplicates = docs.filter((_, i) => failed.has(i));
    const leftBehind = await this.c.executions
      .find({ $or: duplicates.map((d) => ({ tenantId: d.tenantId, occurrenceKey: d.occurrenceKey, status: 'SCHEDULED' as const })) })
      .toArray();
    return { inserted, leftBehind };
  }

  /**
   * SCHEDULED → QUEUED for the given executions (a compare-and-set on the status). One statement per
   * execution, by `_id`: an `_id: {$in}` filter makes FerretDB read the whole executions collection.
   */
  async markQueued(ids: ObjectId[], now: Date): Promise<void> {
    const ops: AnyBulkWriteOperation<ExecutionDoc>[] = ids.map((_id) => ({
      updateOne: { filter: { _id, status: 'SCHEDULED' }, update: { $set: { status: 'QUEUED', queuedAt: now, updatedAt: now } } },
    }));
    await bulkUpdate(this.c.executions, ops, this.oneByOne);
  }

  async advanceJobs(advances: JobAdvance[], now: Date): Promise<void> {
    if (advances.length === 0) return;
    const ops: AnyBulkWriteOperation<JobDoc>[] = advances.map((a) => ({
      updateOne: {
        filter: { _id: a.jobId, version: a.version, scheduleCursor: a.expected } as Filter<JobDoc>,
        update: { $set: { scheduleCursor: a.scheduleCursor, status: a.status, updatedAt: now, fencingToken: a.fencingToken } },
      },
    }));
    await bulkUpdate(this.c.jobs, ops, this.oneByOne);
  }

  /** The current version, status and cursor of each job (absent when the job was deleted), each by `_id` (see findJobsByIds). */
  async jobStates(ids: ObjectId[]): Promise<Map<string, Pick<JobDoc, 'version' | 'status' | 'scheduleCursor'>>> {
    const projection = { version: 1, status: 1, scheduleCursor: 1 };
    const rows = await Promise.all(ids.map((_id) => this.c.jobs.findOne({ _id }, { projection })));
    return new Map(rows.filter((r) => r !== null).map((r) => [r._id.toHexString(), r]));
  }

  /** Cancels those of `ids` that have not started yet (SCHEDULED or QUEUED), with the reason; returns the ones it cancelled. */
  async cancelWaiting(ids: ObjectId[], reason: string, now: Date): Promise<ObjectId[]> {
    if (ids.length === 0) return [];
    await this.c.executions.updateMany(
      { _id: { $in: ids }, status: { $in: ['SCHEDULED', 'QUEUED'] } },
      { $set: { status: 'CANCELLED', reason, finishedAt: now, updatedAt: now } },
    );
    const cancelled = await this.c.executions
      .find({ _id: { $in: ids }, status: 'CANCELLED', reason, finishedAt: now }, { projection: { _id: 1 } })
      .batchSize(ids.length + 1)
      .toArray();
    return cancelled.map((e) => e._id);
  }

  /**
   * Executions that should be in the queue but may not be (Redis lost them, or a crash came between
   * steps): waiting ones past their time, and RUNNING ones past their attempt's deadline.
   */
  async findStranded(olderThan: Date, limit: number): Promise<ExecutionDoc[]> {
    return this.findAny([...waitingDueBefore(olderThan), { status: 'RUNNING', deadlineAt: { $lt: olderThan } }], limit);
  }

  /** Executions waiting for the queue (SCHEDULED, QUEUED, or RETRYING) that are due before `before`. */
  async findWaiting(before: Date, limit: number): Promise<ExecutionDoc[]> {
    return this.findAny(waitingDueBefore(before), limit);
  }

  private async findAny(alternatives: Filter<ExecutionDoc>[], limit: number): Promise<ExecutionDoc[]> {
    return this.c.executions.find({ $or: alternatives }).limit(limit).batchSize(limit).toArray();
  }
}

/** Executions waiting for a queue entry whose time (first run or next attempt) is before `before`. */
function waitingDueBefore(before: Date): Filter<ExecutionDoc>[] {
  const waiting: ExecutionStatus[] = ['SCHEDULED', 'QUEUED'];
  return [
    { status: { $in: waiting }, scheduledFor: { $lt: before } },
    { status: 'RETRYING', nextAttemptAt: { $lt: before } },
  ];
}
