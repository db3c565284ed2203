import type { Db, Filter, ObjectId } from 'mongodb';
import { SKIPPED_STATUS, type ExecutionDoc, type ExecutionStatus } from '../domain/execution.js';
import { HISTORY_STATUSES, statusesMatching, type ExecutionPhase } from '../domain/executionPhase.js';
import type { PageRequest } from '../pagination/pageRequest.js';
import { collections, type Collections } from './collections.js';
import { insertNew } from './insertNew.js';
import { keysetFilter } from './keyset.js';
import { rewriteSkips, type SkipRewrite } from './skipRewrites.js';
import { cancelWaiting, type CancelledExecution, type WaitingSelection } from './waitingCancels.js';

/** existingOccurrences' look-ups in flight at once. */
const EXISTING_LOOKUPS = 16;

export interface ExecutionListFilter {
  jobId?: ObjectId | null;
  /** Executions of any of these jobs (an `$in`; a filter by label resolves to them). */
  jobIds?: readonly ObjectId[] | null;
  statuses?: ExecutionStatus[] | null;
  /** Intersected with `statuses` when both are given. */
  phase?: ExecutionPhase | null;
  /** Inclusive. */
  scheduledAfter?: Date | null;
  /** Exclusive. */
  scheduledBefore?: Date | null;
  /** Inclusive; an execution that has not finished has no finishedAt and matches no finishedAt bound. */
  finishedAfter?: Date | null;
  /** Exclusive. */
  finishedBefore?: Date | null;
}

/** An execution as a bulk operation's snapshot holds it (domain/bulkOperation.ts, BulkItem). */
export type ExecutionSnapshot = Pick<ExecutionDoc, '_id' | 'jobId' | 'status' | 'attempt'>;

/** A tenant's executions, the primary source of every monitoring query. Every query carries the tenant. */
export class ExecutionStore {
  private readonly c: Collections;

  constructor(
    db: Db,
    readonly tenantId: string,
  ) {
    this.c = collections(db);
  }

  private scoped(filter: Filter<ExecutionDoc> = {}): Filter<ExecutionDoc> {
    return { ...filter, tenantId: this.tenantId };
  }

  async insert(execution: Omit<ExecutionDoc, 'tenantId'>): Promise<ExecutionDoc> {
    const doc: ExecutionDoc = { ...execution, tenantId: this.tenantId };
    await this.c.executions.insertOne(doc);
    return doc;
  }

  /**
   * Inserts `executions` (insertMany in chunks), skipping those whose occurrence already has one
   * (the unique tenant + occurrence key): returns the ones this call inserted and how many it skipped.
   */
  async insertOccurrences(executions: Omit<ExecutionDoc, 'tenantId'>[]): Promise<{ inserted: ExecutionDoc[]; existing: number }> {
    const docs: ExecutionDoc[] = executions.map((e) => ({ ...e, tenantId: this.tenantId }));
    const duplicates = await insertNew(this.c.executions, docs);
    return { inserted: docs.filter((_, i) => !duplicates.has(i)), existing: duplicates.size };
  }

  /**
   * Which of these occurrence keys have an execution. One equality look-up each on the unique
   * occurrence index (FerretDB evaluates an `$in` or `$or` in Go over every execution of the
   * tenant), EXISTING_LOOKUPS at a time: a backfill's hundreds must not take the whole connection
   * pool ahead of other requests.
   */
  async existingOccurrences(occurrenceKeys: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let start = 0; start < occurrenceKeys.length; start += EXISTING_LOOKUPS) {
      const rows = await Promise.all(
        occurrenceKeys
          .slice(start, start + EXISTING_LOOKUPS)
          .map((occurrenceKey) => this.c.executions.findOne(this.scoped({ occurrenceKey }), { projection: { occurrenceKey: 1 } })),
      );
      for (const r of rows) if (r) found.add(r.occurrenceKey);
    }
    return found;
  }

  async findById(id: ObjectId): Promise<ExecutionDoc | null> {
    return this.c.executions.findOne(this.scoped({ _id: id }));
  }

  async findByIds(ids: readonly ObjectId[]): Promise<ExecutionDoc[]> {
    return this.c.executions.find(this.scoped({ _id: { $in: [...ids] } })).toArray();
  }

  /** Newest first (scheduledFor, then _id); fetches `limit + 1` rows so the caller knows whether there is more. */
  async list(filter: ExecutionListFilter, page: PageRequest): Promise<ExecutionDoc[]> {
    const f = listConditions(filter);
    // A phase and statuses with nothing in common: no query at all.
    if (!f) return [];
    const direction = page.forward ? -1 : 1;
    // The tenant (and job, status) equalities stay at the top level, the keyset conditions under
    // $and beside them: FerretDB 1.24 pushes only top-level equalities down to PostgreSQL (where an
    // index on tenantId serves them), and a filter wholly inside $and would read every execution.
    const keyset = keysetFilter<ExecutionDoc>('scheduledFor', page);
    return this.c.executions
      .find({ ...this.scoped(f), ...(keyset.length > 0 ? { $and: keyset } : {}) } as Filter<ExecutionDoc>)
      .sort({ scheduledFor: direction, _id: direction })
      .limit(page.limit + 1)
      .toArray();
  }

  /**
   * The id, status and attempt of the executions `filter` matches, at most `limit` (a bulk
   * operation's snapshot; the caller asks for one more than it accepts to know the set is too
   * large). Unsorted: the tenant, job and single status stay top-level equalities, all FerretDB
   * pushes down; the finishedAt and scheduledFor ranges it evaluates over what those select.
   */
  async snapshot(filter: ExecutionListFilter, limit: number): Promise<ExecutionSnapshot[]> {
    const f = listConditions(filter);
    if (!f) return [];
    return this.c.executions
      .find<ExecutionSnapshot>(this.scoped(f), { projection: { _id: 1, jobId: 1, status: 1, attempt: 1 } })
      .limit(limit)
      .toArray();
  }

  /**
   * The newest execution (by scheduledFor) of each of `jobIds` that has started or finished; null
   * for a job with none. One read per job, run together; on MongoDB each walks the job's newest
   * entries of tenant_job_scheduled (past the occurrences materialised ahead) to its first started
   * one, however long the history. On FerretDB each reads all of the job's executions (its sort runs
   * in FerretDB), so a page of jobs reads the tenant's: `atOnce` reads run together, not a page's
   * hundred on the shared pool.
   */
  async newestStartedOfJobs(jobIds: readonly ObjectId[], atOnce = 4): Promise<(ExecutionDoc | null)[]> {
    const found: (ExecutionDoc | null)[] = [];
    for (let i = 0; i < jobIds.length; i += atOnce) {
      const reads = jobIds.slice(i, i + atOnce).map((jobId) =>
        this.c.executions.findOne(this.scoped({ jobId, status: statusCondition(HISTORY_STATUSES) }), {
          sort: { scheduledFor: -1, _id: -1 },
        }),
      );
      found.push(...(await Promise.all(reads)));
    }
    return found;
  }

  /** Cancels the tenant's executions `selection` picks (store/waitingCancels.ts): moves them to `to`, the transition's status. */
  async cancelWaiting(selection: WaitingSelection, to: ExecutionStatus, reason: string, now: Date): Promise<CancelledExecution[]> {
    return cancelWaiting(this.c.executions, selection, to, reason, now, (filter) => this.scoped(filter));
  }

  /**
   * Occurrences of executions scheduled in [since, until) of the tenant (or of one job), counted by
   * status: a SKIPPED budget record counts the occurrences it stands for (`skippedCount`). Grouped by
   * status and count, not summed in the pipeline: FerretDB 1.24 sums a field to 0.
   */
  async countByStatus(since: Date, until: Date, jobId: ObjectId | null): Promise<{ status: ExecutionStatus; count: number }[]> {
    const match: Filter<ExecutionDoc> = this.scoped({ scheduledFor: { $gte: since, $lt: until }, ...(jobId ? { jobId } : {}) });
    const rows = await this.c.executions
      .aggregate<{
        _id: { status: ExecutionStatus; skippedCount?: number | null };
        count: number;
      }>([{ $match: match }, { $group: { _id: { status: '$status', skippedCount: '$skippedCount' }, count: { $sum: 1 } } }])
      .toArray();
    const counts = new Map<ExecutionStatus, number>();
    for (const { _id, count } of rows) counts.set(_id.status, (counts.get(_id.status) ?? 0) + count * (_id.skippedCount ?? 1));
    return [...counts].map(([status, count]) => ({ status, count }));
  }

  /** When executions scheduled in [since, until) were due, started and finished (the benchmark's figures); at most `limit`. */
  async timings(
    since: Date,
    until: Date,
    limit: number,
  ): Promise<Pick<ExecutionDoc, 'status' | 'scheduledFor' | 'startedAt' | 'finishedAt'>[]> {
    return this.c.executions
      .find<Pick<ExecutionDoc, 'status' | 'scheduledFor' | 'startedAt' | 'finishedAt'>>(
        this.scoped({ scheduledFor: { $gte: since, $lt: until } }),
        {
          projection: { _id: 0, status: 1, scheduledFor: 1, startedAt: 1, finishedAt: 1 },
        },
      )
      .limit(limit)
      .toArray();
  }

  /** Start lags (first start minus scheduledFor, ms) of executions scheduled in [since, until) that started, BACKFILL ones left out; at most `limit` read. */
  async startLags(since: Date, until: Date, jobId: ObjectId | null, limit: number): Promise<number[]> {
    const rows = await this.c.executions
      .find<Pick<ExecutionDoc, 'scheduledFor' | 'startedAt' | 'trigger'>>(
        // A backfilled execution is due at a past occurrence by design: its lag says nothing about the
        // workers. Left out by the query, so that a large backfill does not crowd live ones out of `limit`.
        this.scoped({
          scheduledFor: { $gte: since, $lt: until },
          startedAt: { $ne: null },
          trigger: { $ne: 'BACKFILL' },
          ...(jobId ? { jobId } : {}),
        }),
        { projection: { _id: 0, scheduledFor: 1, startedAt: 1, trigger: 1 } },
      )
      .limit(limit)
      .toArray();
    return rows.map((r) => r.startedAt!.getTime() - r.scheduledFor.getTime());
  }

  /**
   * A FAILED or CANCELLED execution back to `to` (the retry transition's QUEUED) for a fresh round of
   * `attempts` more attempts (compare-and-set on the status and attempt it was read with); null when
   * it changed meanwhile. `bulkOperationId` marks the round as that bulk retry's (null: a single retry).
   */
  async requeueForRetry(
    current: Pick<ExecutionDoc, '_id' | 'status' | 'attempt'>,
    to: ExecutionStatus,
    attempts: number,
    now: Date,
    bulkOperationId: ObjectId | null = null,
  ): Promise<ExecutionDoc | null> {
    return this.c.executions.findOneAndUpdate(
      this.scoped({ _id: current._id, status: current.status, attempt: current.attempt }),
      {
        $set: {
          status: to,
          maxAttempts: current.attempt + attempts,
          queuedAt: now,
          finishedAt: null,
          nextAttemptAt: null,
          error: null,
          reason: null,
          bulkOperationId,
          updatedAt: now,
        },
      },
      { returnDocument: 'after' },
    );
  }

  /**
   * Puts the job's executions of `occurrenceKeys` that are in `from` with one of `reasons` and never
   * started back to `to` (the revive transition's statuses), so the occurrence they hold can be
   * materialised again. Returns how many it moved.
   */
  async reviveCancelled(
    jobId: ObjectId,
    revive: { occurrenceKeys: readonly string[]; reasons: readonly string[]; from: ExecutionStatus; to: ExecutionStatus },
    now: Date,
  ): Promise<number> {
    if (revive.occurrenceKeys.length === 0) return 0;
    const result = await this.c.executions.updateMany(
      this.scoped({
        jobId,
        occurrenceKey: { $in: [...revive.occurrenceKeys] },
        status: revive.from,
        reason: { $in: [...revive.reasons] },
        attempt: 0,
      }),
      { $set: { status: revive.to, reason: null, queuedAt: null, finishedAt: null, updatedAt: now } },
    );
    return result.modifiedCount;
  }

  /** The job's SKIPPED budget records that stand for an occurrence at or after `from` (see trimSkip). */
  async skipsReaching(jobId: ObjectId, from: Date): Promise<ExecutionDoc[]> {
    return this.c.executions.find(this.scoped({ jobId, status: SKIPPED_STATUS, skippedUntil: { $gte: from } })).toArray();
  }

  /** Writes the job's SKIPPED budget records cut down by a pause, resume or schedule change (skipRewrites.ts). */
  async rewriteSkips(rewrites: readonly SkipRewrite[], now: Date): Promise<void> {
    if (rewrites.length > 0) await rewriteSkips(this.c.executions, rewrites, now, true, (filter) => this.scoped(filter));
  }
}

/**
 * The conditions of `filter` apart from the tenant; null when it can match nothing (a phase and
 * statuses with nothing in common). Equalities (job, a single status) at the top level, where
 * FerretDB pushes them down; the ranges beside them.
 */
function listConditions(filter: ExecutionListFilter): Filter<ExecutionDoc> | null {
  const f: Filter<ExecutionDoc> = {};
  if (filter.jobId) f.jobId = filter.jobId;
  else if (filter.jobIds) f.jobId = { $in: [...filter.jobIds] };
  const statuses = statusesMatching(filter.statuses, filter.phase);
  if (statuses?.length === 0) return null;
  if (statuses) f.status = statusCondition(statuses);
  const scheduled = range(filter.scheduledAfter, filter.scheduledBefore);
  if (scheduled) f.scheduledFor = scheduled;
  const finished = range(filter.finishedAfter, filter.finishedBefore);
  if (finished) f.finishedAt = finished;
  return f;
}

/** [after, before) as a condition; null without either bound. */
function range(after: Date | null | undefined, before: Date | null | undefined): { $gte?: Date; $lt?: Date } | null {
  if (!after && !before) return null;
  return { ...(after ? { $gte: after } : {}), ...(before ? { $lt: before } : {}) };
}

/** One status as an equality: FerretDB pushes that down to PostgreSQL, an $in it evaluates itself. */
function statusCondition(statuses: readonly ExecutionStatus[]): Filter<ExecutionDoc>['status'] {
  return statuses.length === 1 ? statuses[0] : { $in: [...statuses] };
}
