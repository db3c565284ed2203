import type { AnyBulkWriteOperation, Collection, Filter, ObjectId } from 'mongodb';
import type { ExecutionDoc, ExecutionStatus, ExecutionTrigger } from '../domain/execution.js';
import { bulkUpdate } from './bulkUpdates.js';

/** Which waiting executions to cancel: those in one of `statuses`, narrowed by the other fields. */
export interface WaitingSelection {
  statuses: readonly ExecutionStatus[];
  /** Only this job's. */
  jobId?: ObjectId;
  /** Only these executions. */
  executionIds?: readonly ObjectId[];
  /** Only executions with one of these triggers; any trigger when omitted. */
  triggers?: readonly ExecutionTrigger[];
  /** Occurrences to leave alone. */
  exceptOccurrenceKeys?: readonly string[];
}

/** An execution a cancel call moved to its new status, with the status it had. */
export interface CancelledExecution {
  execution: Pick<ExecutionDoc, '_id' | 'tenantId' | 'jobId' | 'workload' | 'attempt'>;
  previousStatus: ExecutionStatus;
}

/**
 * A store that cancels waiting executions: the tenant's ExecutionStore (a job's, on pause, delete,
 * schedule change or a user's cancel) and the scheduler's SchedulerStore (by ids, any tenant: a pass
 * whose job was paused or deleted under it). The cancel transition takes either.
 */
export interface WaitingCanceller {
  cancelWaiting(selection: WaitingSelection, to: ExecutionStatus, reason: string, now: Date): Promise<CancelledExecution[]>;
}

type WaitingRow = Pick<ExecutionDoc, '_id' | 'tenantId' | 'jobId' | 'workload' | 'attempt' | 'status'>;

/**
 * Moves the executions `selection` picks to `to` with `reason`, each with a compare-and-set on the
 * status and attempt it was read with, so one that a worker started meanwhile is left running. One
 * read and one batched write; returns exactly the executions this call cancelled. `scope` adds the
 * tenant where the caller is tenant-scoped.
 */
export async function cancelWaiting(
  executions: Collection<ExecutionDoc>,
  selection: WaitingSelection,
  to: ExecutionStatus,
  reason: string,
  now: Date,
  scope: (filter: Filter<ExecutionDoc>) => Filter<ExecutionDoc> = (filter) => filter,
): Promise<CancelledExecution[]> {
  const ids = selection.executionIds;
  if (ids?.length === 0) return [];
  const filter: Filter<ExecutionDoc> = {};
  if (selection.jobId) filter.jobId = selection.jobId;
  filter.status = { $in: [...selection.statuses] };
  if (selection.triggers) filter.trigger = { $in: [...selection.triggers] };
  if (selection.exceptOccurrenceKeys?.length) filter.occurrenceKey = { $nin: [...selection.exceptOccurrenceKeys] };
  // One id as an equality: FerretDB answers an `_id: {$in}` by reading the whole collection.
  if (ids) filter._id = ids.length === 1 ? ids[0] : { $in: [...ids] };
  const waiting = await executions
    .find<WaitingRow>(scope(filter), { projection: { _id: 1, tenantId: 1, jobId: 1, workload: 1, attempt: 1, status: 1 } })
    .toArray();
  if (waiting.length === 0) return [];
  // One statement per (status, attempt) read, usually one or two, each its own command: a cancel
  // is rare, and that is the shape FerretDB cannot deadlock on (bulkUpdates.ts).
  const groups = new Map<string, WaitingRow[]>();
  for (const e of waiting) {
    const key = `${e.status}/${e.attempt}`;
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  const ops: AnyBulkWriteOperation<ExecutionDoc>[] = [...groups.values()].map((group) => ({
    updateMany: {
      filter: scope({ _id: { $in: group.map((e) => e._id) }, status: group[0].status, attempt: group[0].attempt }),
      update: { $set: { status: to, reason, finishedAt: now, nextAttemptAt: null, updatedAt: now } },
    },
  }));
  const result = await bulkUpdate(executions, ops, true);
  let cancelled = waiting;
  if (result.modifiedCount !== waiting.length) {
    // Some changed between the read and the write (a worker claimed them): keep the ones written here.
    const mine = await executions
      .find<Pick<ExecutionDoc, '_id' | 'attempt'>>(
        scope({ _id: { $in: waiting.map((e) => e._id) }, status: to, reason, finishedAt: now }),
        {
          projection: { _id: 1, attempt: 1 },
        },
      )
      .toArray();
    const attemptById = new Map(mine.map((e) => [e._id.toHexString(), e.attempt]));
    cancelled = waiting.filter((e) => attemptById.get(e._id.toHexString()) === e.attempt);
  }
  return cancelled.map(({ status, ...execution }) => ({ execution, previousStatus: status }));
}
