import { ObjectId } from 'mongodb';
import type { Workload } from './job.js';

/*
 * Each string union below is the element type of an `as const` list, which src/schema registers as
 * the GraphQL enum of the same name: adding a value here adds it to the API.
 */

export const EXECUTION_STATUSES = ['SCHEDULED', 'QUEUED', 'RUNNING', 'RETRYING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'SKIPPED'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

export const FINAL_STATUSES: readonly ExecutionStatus[] = ['SUCCEEDED', 'FAILED', 'CANCELLED', 'SKIPPED'];
/** Statuses a worker may start an execution from (the compare-and-set of docs/architecture.md, "The life of an occurrence", step 4). */
export const STARTABLE_STATUSES: readonly ExecutionStatus[] = ['SCHEDULED', 'QUEUED', 'RETRYING'];
/** The status of an execution while an attempt runs: what a worker's start writes, what an attempt's end and a takeover move it from. */
export const RUNNING_STATUS: Extract<ExecutionStatus, 'RUNNING'> = 'RUNNING';
/** Statuses a worker runs an execution in: startable, or RUNNING (a duplicate delivery, or a takeover's). */
export const RUNNABLE_STATUSES: readonly ExecutionStatus[] = [...STARTABLE_STATUSES, RUNNING_STATUS];
/** A cancelled execution: an attempt that ran meanwhile without its start written still joins its record. */
export const CANCELLED_STATUS: Extract<ExecutionStatus, 'CANCELLED'> = 'CANCELLED';
/** How an execution ends before any attempt: skipped (overlap policy) or cancelled (its job is gone). */
export type UnstartedEndStatus = Extract<ExecutionStatus, 'SKIPPED' | 'CANCELLED'>;

export const EXECUTION_TRIGGERS = ['SCHEDULE', 'MANUAL', 'CATCH_UP', 'BACKFILL'] as const;
export type ExecutionTrigger = (typeof EXECUTION_TRIGGERS)[number];
export const ATTEMPT_OUTCOMES = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CRASHED', 'CANCELLED'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

export interface AttemptDoc {
  number: number;
  startedAt: Date;
  finishedAt: Date | null;
  outcome: AttemptOutcome | null;
  error: string | null;
  httpStatus: number | null;
  workerId: string;
  /** The wait the receiver asked for with Retry-After, as obeyed (capped) before the next attempt; absent when none. */
  retryAfterSeconds?: number | null;
}

/** The `executions` collection's document: one per occurrence, in every state. */
export interface ExecutionDoc {
  _id: ObjectId;
  tenantId: string;
  jobId: ObjectId;
  /** Unique per tenant: `<jobId>@<nominal ISO instant>` for schedule occurrences and backfilled ones (the same key: one execution per occurrence), `manual:<id>` otherwise. */
  occurrenceKey: string;
  trigger: ExecutionTrigger;
  status: ExecutionStatus;
  workload: Workload;
  /** The nominal occurrence plus its jitter: when it is due. */
  scheduledFor: Date;
  queuedAt: Date | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  /** Attempts started so far. */
  attempt: number;
  maxAttempts: number;
  nextAttemptAt: Date | null;
  attempts: AttemptDoc[];
  error: string | null;
  reason: string | null;
  /** The handler's result as JSON text. */
  resultJson: string | null;
  /** A manual trigger's payload override, as JSON text; null = use the job's payload. */
  payloadJson: string | null;
  /**
   * While RUNNING: when the attempt is overdue whatever became of its queue entry (start + timeout +
   * queue lock); reconcile takes over a RUNNING execution past it (Redis may have lost the entry).
   */
  deadlineAt?: Date | null;
  /** The scheduler leader's fencing token when it materialised this execution. */
  fencingToken: number | null;
  /**
   * On a SKIPPED record of occurrences past the tenant's budget (scheduler/budgetSkips.ts): how many
   * consecutive occurrences of its job it stands for, the first at `scheduledFor` (whose occurrence key
   * it holds), the last at `skippedUntil`. Absent on an execution of one occurrence of its own.
   */
  skippedCount?: number;
  skippedUntil?: Date;
  /** True on a SKIPPED record of occurrences inside one of the job's exclusion windows: planned, not a fault, so no SKIPPED alert. */
  excluded?: boolean;
  /** On the first execution a materialisation pass wrote for a job, if it grouped skipped occurrences: what it decided. */
  pass?: PassRecord;
  /** The bulk retry that queued the current round, if one did: how a resumed bulk retry knows an item it already requeued. */
  bulkOperationId?: ObjectId | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * What one materialisation pass decided for a job, kept on the first execution it wrote (the one
 * keyed by the job's schedule cursor, which every pass from that cursor writes first), so a pass
 * repeated from the same cursor (a leader that died before advancing it, a second leader) makes
 * the same decisions instead of its own (scheduler/materialise.ts).
 */
export interface PassRecord {
  /** The job's version the pass read: a pass over another version decides afresh. */
  version: number;
  /** The pass's `now` and the job's horizon, as planOccurrences took them. */
  now: Date;
  horizon: Date;
  /** Occurrences before this instant were missed; null: none was (the API's passes). */
  missedBefore: Date | null;
  /** The first occurrence recorded SKIPPED past the tenant's budget, every later one that would have run being so too; null: none. */
  budgetFrom: Date | null;
}

/** A fresh execution in SCHEDULED, before any attempt. */
export function newExecution(
  fields: Pick<ExecutionDoc, 'tenantId' | 'jobId' | 'occurrenceKey' | 'trigger' | 'workload' | 'scheduledFor' | 'maxAttempts'> &
    Partial<Pick<ExecutionDoc, '_id' | 'payloadJson' | 'fencingToken'>>,
  now: Date,
): ExecutionDoc {
  return {
    ...fields,
    _id: fields._id ?? new ObjectId(),
    status: 'SCHEDULED',
    queuedAt: null,
    startedAt: null,
    finishedAt: null,
    attempt: 0,
    nextAttemptAt: null,
    attempts: [],
    error: null,
    reason: null,
    resultJson: null,
    payloadJson: fields.payloadJson ?? null,
    fencingToken: fields.fencingToken ?? null,
    createdAt: now,
    updatedAt: now,
  };
}

/** What an attempt's end writes (decided by decideAttemptEnd, plus the attempt's own outcome). */
export interface AttemptEnd {
  status: ExecutionStatus;
  nextAttemptAt: Date | null;
  /** The execution is over (finishedAt is set). */
  final: boolean;
  error: string | null;
  reason: string | null;
  resultJson: string | null;
  outcome: AttemptOutcome;
  httpStatus: number | null;
  /** The receiver's Retry-After the next attempt waits for (decideAttemptEnd); null or absent when none. */
  retryAfterSeconds?: number | null;
}

/** The execution's fields an end sets at `now` (runStore writes them; a subscriber applies them: applyAttemptEnd). */
export function executionEndFields(
  end: AttemptEnd,
  now: Date,
): Pick<ExecutionDoc, 'status' | 'nextAttemptAt' | 'finishedAt' | 'error' | 'reason' | 'resultJson' | 'updatedAt'> {
  return {
    status: end.status,
    nextAttemptAt: end.nextAttemptAt,
    finishedAt: end.final ? now : null,
    error: end.error,
    reason: end.reason,
    resultJson: end.resultJson,
    updatedAt: now,
  };
}

/** The ended attempt's fields an end sets at `now` (`retryAfterSeconds` only when the receiver's was obeyed). */
export function attemptEndFields(
  end: AttemptEnd,
  now: Date,
): Pick<AttemptDoc, 'finishedAt' | 'outcome' | 'error' | 'httpStatus' | 'retryAfterSeconds'> {
  const fields = { finishedAt: now, outcome: end.outcome, error: end.error, httpStatus: end.httpStatus };
  return end.retryAfterSeconds != null ? { ...fields, retryAfterSeconds: end.retryAfterSeconds } : fields;
}

/** `doc` (RUNNING attempt `attempt`) as the end of that attempt at `now` leaves it. Pure. */
export function applyAttemptEnd(doc: ExecutionDoc, attempt: number, end: AttemptEnd, now: Date): ExecutionDoc {
  return {
    ...doc,
    ...executionEndFields(end, now),
    attempts: doc.attempts.map((a) => (a.number === attempt ? { ...a, ...attemptEndFields(end, now) } : a)),
  };
}

/** The status of every record of skipped occurrences, of one or many (scheduler/budgetSkips.ts): what reads and trims of such records filter on. */
export const SKIPPED_STATUS: Extract<ExecutionStatus, 'SKIPPED'> = 'SKIPPED';

/** A status, and the field of an execution in it that says since when it is overdue (waiting for a queue entry, or RUNNING past its deadline). */
export interface OverdueSince {
  status: ExecutionStatus;
  field: 'scheduledFor' | 'nextAttemptAt' | 'deadlineAt';
}

/** Executions waiting for a queue entry, by the time of their first run or next attempt (reconcile, a new leader's requeue). */
export const WAITING_SINCE: readonly OverdueSince[] = [
  { status: 'SCHEDULED', field: 'scheduledFor' },
  { status: 'QUEUED', field: 'scheduledFor' },
  { status: 'RETRYING', field: 'nextAttemptAt' },
];

/** A RUNNING execution past its attempt's deadline: its worker is gone, whatever became of its queue entry (reconcile's takeover). */
export const RUNNING_SINCE: OverdueSince = { status: 'RUNNING', field: 'deadlineAt' };
