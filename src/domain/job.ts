import type { ObjectId } from 'mongodb';
import type { JobExclusionFields } from './exclusion.js';
import type { FlowControl } from './flowControl.js';

/*
 * Each string union below is the element type of an `as const` list, which src/schema registers as
 * the GraphQL enum of the same name: adding a value here adds it to the API.
 */

export const SCHEDULE_KINDS = ['CRON', 'INTERVAL', 'ONCE'] as const;
export type ScheduleKind = (typeof SCHEDULE_KINDS)[number];

/** What a schedule has whatever its kind. */
export interface ScheduleCommon {
  /** IANA zone the cron is evaluated in; 'UTC' by default. */
  timezone: string;
  startAt?: Date;
  endAt?: Date;
  /** Upper bound of the uniformly random delay added to each occurrence; 0 = none. */
  jitterSeconds: number;
}

/**
 * A job's schedule as stored (inline in the job document) and as validated from ScheduleInput:
 * `kind` tells which one of `cron`, `intervalSeconds` and `runAt` it has (the stored `kind` field).
 */
export type Schedule = ScheduleCommon &
  (
    | {
        kind: 'CRON';
        /** 5 fields (minute first) or 6 fields (second first). */
        cron: string;
      }
    | {
        kind: 'INTERVAL';
        /** At least 1. */
        intervalSeconds: number;
      }
    | { kind: 'ONCE'; runAt: Date }
  );

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface HttpHeader {
  name: string;
  value: string;
}

export type JobTarget = { kind: 'HTTP'; url: string; method: HttpMethod; headers: HttpHeader[] } | { kind: 'HANDLER'; handler: string };

export const WORKLOADS = ['IO_BOUND', 'CPU_BOUND'] as const;
export type Workload = (typeof WORKLOADS)[number];
export const OVERLAP_POLICIES = ['ALLOW', 'SKIP', 'BUFFER_ONE', 'CANCEL_PREVIOUS'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];
export const MISFIRE_POLICIES = ['RUN_ONCE', 'RUN_ALL', 'SKIP'] as const;
export type MisfirePolicy = (typeof MISFIRE_POLICIES)[number];
export const JOB_STATUSES = ['ACTIVE', 'PAUSED', 'COMPLETED'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export interface RetryPolicy {
  /** Total attempts, the first included. */
  maxAttempts: number;
  initialBackoffSeconds: number;
  maxBackoffSeconds: number;
  backoffMultiplier: number;
  /**
   * HTTP statuses that end the execution at once instead of being retried; an empty list retries
   * every status. Absent (or null): the default rule, every 4xx but 408, 425 and 429
   * (domain/nonRetryableStatuses.ts). Stored only when the job set it.
   */
  nonRetryableStatuses?: number[] | null;
}

/** The `jobs` collection's document (exclusion windows: JobExclusionFields). */
export interface JobDoc extends JobExclusionFields {
  _id: ObjectId;
  tenantId: string;
  name: string;
  /** Lower-cased name, for the case-insensitive prefix filter without a regex option. */
  nameLower: string;
  description: string | null;
  schedule: Schedule;
  target: JobTarget;
  /** The payload as JSON text: stored inertly, so keys like `$where` or `a.b` are never interpreted. */
  payloadJson: string | null;
  workload: Workload;
  timeoutSeconds: number;
  retryPolicy: RetryPolicy;
  overlapPolicy: OverlapPolicy;
  misfirePolicy: MisfirePolicy;
  /** Limits shared by the jobs of the tenant that name the same key; absent or null: none. */
  flowControl?: FlowControl | null;
  /**
   * The job's labels, one `key=value` string each, sorted by key (domain/labels.ts says why not a
   * document); absent on jobs stored before jobs had labels.
   */
  labelPairs?: string[];
  /** The client's own id for the job, unique among the tenant's jobs; null or absent: none. */
  externalId?: string | null;
  /**
   * What the tenant's unique index on external ids holds (domain/externalId.ts, jobExternalKey). Absent
   * only on jobs stored before the index, until ensureIndexes fills it in.
   */
  externalKey?: string;
  status: JobStatus;
  /**
   * The scheduler's materialisation cursor: the nominal (un-jittered) time of the first occurrence
   * not yet materialised as an execution, or null when there is none (paused, or the schedule has
   * ended). Up to the look-ahead later than the next run; the API's `nextRunAt` is computed from it
   * (domain/schedule/nextRunAt.ts).
   */
  scheduleCursor: Date | null;
  /**
   * When a pause, resume or schedule change last moved `scheduleCursor` (the API's `now`); absent
   * until one did. Passes before it may have materialised occurrences beyond the new cursor, so the
   * budget skips of a while after it are recorded one document each (scheduler/budgetSkips.ts).
   */
  rescheduledAt?: Date;
  lastRunAt: Date | null;
  /** The caller's key, or `auto:<_id>` when none was given (keeps the unique index free of nulls). */
  idempotencyKey: string;
  createdAt: Date;
  updatedAt: Date;
  /** Fencing token of the scheduler leader that last advanced `scheduleCursor`. */
  fencingToken?: number;
  /** Incremented on every change of the definition. */
  version: number;
}
