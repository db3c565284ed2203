import type { ExecutionDoc, ExecutionStatus, ExecutionTrigger } from '../domain/execution.js';
import type { JobDoc, Workload } from '../domain/job.js';
import { LIMITS } from '../domain/jobLimits.js';
import { FLOW_LIMITS } from '../domain/flowControl.js';

/**
 * A payload of up to this many bytes (its JSON text, as UTF-8) travels in the queue entry; a larger
 * one stays in MongoDB, where the worker reads it when the attempt starts (one read, see
 * `queueEntry`). A waiting entry sits in the Redis every tenant shares: carrying payloads at their
 * 256 KiB limit, the job's and a trigger's override, an execution took 514 KiB of it while it waited.
 */
export const INLINE_PAYLOAD_BYTES = 4 * 1024;

/**
 * The most an entry's data (the message as JSON, BullMQ's `data` field) can take, in bytes: at most
 * one payload, inline (a JSON text inside JSON: escaping at most doubles its bytes); the job's target
 * at the job input's limits (the URL as stored, its characters percent-encoded at most 9 bytes each;
 * header names and values at most 2 bytes a character, Latin-1 in UTF-8 or escaped, and 32 bytes of
 * JSON around each header); and 1 KiB for the rest (ids, a tenant id of at most 128 characters,
 * instants, policies, a retry policy's 50 non-retryable statuses included). 60 KiB with today's limits; an entry of a job with a plain target and no
 * inline payload takes under 1 KiB. In Redis an entry takes at most 66 KiB: the allocator rounds
 * the data up (to 64 KiB at most), and BullMQ's other fields, its event and the waiting index's
 * member take under 2 KiB (tests/integration/waitingExecutions.test.ts measures it).
 */
export const MAX_ENTRY_DATA_BYTES =
  2 * INLINE_PAYLOAD_BYTES + 9 * LIMITS.urlLength + 2 * LIMITS.headerBytes + 32 * LIMITS.headerCount + 3 * FLOW_LIMITS.keyLength + 1024;

/**
 * The job's fields an attempt needs, as they were when the entry was made (with their version).
 * In an entry, `payloadJson` is null also when the job's payload is not the one sent (the execution
 * has its own, a trigger's override, which replaces it) or was left out (`payloadOmitted`).
 */
export type JobSnapshot = Pick<
  JobDoc,
  'version' | 'target' | 'payloadJson' | 'timeoutSeconds' | 'retryPolicy' | 'overlapPolicy' | 'workload' | 'flowControl'
>;

/**
 * The waiting execution as the entry's maker knew it: what the worker's claim expects (status and
 * attempts started) and what running it needs, so a delivery starts without reading MongoDB. A
 * stale expectation only costs the claim: it misses, and the worker reads the execution instead.
 */
export interface WaitingRun {
  jobId: string;
  workload: Workload;
  status: ExecutionStatus;
  attempt: number;
  maxAttempts: number;
  /** ISO instant. */
  scheduledFor: string;
  /** A manual trigger's payload override; null = the job's, or left out (`payloadOmitted`). */
  payloadJson: string | null;
  /**
   * The payload the attempt sends is over INLINE_PAYLOAD_BYTES and left out of the entry; the worker
   * reads it when the attempt starts, from the execution (its override) or from the job.
   */
  payloadOmitted?: 'execution' | 'job';
  /** What made the execution (for metrics); absent on entries made before this field existed. */
  trigger?: ExecutionTrigger;
}

/** What a queue entry carries. */
export interface ExecutionMessage {
  executionId: string;
  tenantId: string;
  /** Set by reconcile for a RUNNING execution past its deadline: the worker running it is gone. */
  takeover?: boolean;
  /** Absent on takeovers and on entries made before this field existed: the worker reads MongoDB. */
  run?: WaitingRun;
  /** The job's definition when the entry was made; absent = the worker reads the job. */
  job?: JobSnapshot;
}

/** One entry for the execution queues: id (deduplicates adds), queue, due time and message. */
export interface QueueEntry {
  id: string;
  workload: Workload;
  dueAt: Date;
  message: ExecutionMessage;
}

/** Why the entry is made; each kind that can coexist with another entry of the execution has an id of its own. */
export type EntryKind =
  /** Waiting to start (first attempt, or an attempt after a retry backoff): the id every waiting execution has. */
  | { kind: 'waiting' }
  /** Held back by BUFFER_ONE and released by the execution that ran before it. */
  | { kind: 'buffered' }
  /** Reconcile's takeover of a RUNNING attempt past its deadline. */
  | { kind: 'takeover' };

/** What of an execution an entry is built from. */
export type EntryExecution = Pick<
  ExecutionDoc,
  '_id' | 'tenantId' | 'jobId' | 'workload' | 'status' | 'attempt' | 'maxAttempts' | 'scheduledFor' | 'payloadJson'
> &
  Partial<Pick<ExecutionDoc, 'trigger'>> & {
    /** A delivery's execution whose payload its entry left out and nobody read since: the new entry leaves it out too. */
    payloadOmitted?: WaitingRun['payloadOmitted'];
  };

/**
 * The entry id of an execution's waiting entry: the execution id, plus the retry round (attempts
 * started before it) for a RETRYING one, since an id deduplicates adds and the first round's entry
 * may still be around. Cancelling uses the same id to remove it. BullMQ ids may not contain ':'.
 */
export function waitingEntryId(executionId: string, status: ExecutionStatus, attempt: number): string {
  return status === 'RETRYING' ? `${executionId}-r${attempt}` : executionId;
}

/**
 * The one place queue entries are built. `job`, when given, travels with the entry (no job read to
 * start it). At most one payload travels, the one the attempt sends, and only up to
 * INLINE_PAYLOAD_BYTES, so an entry's data stays within MAX_ENTRY_DATA_BYTES: a larger one is left
 * out (`run.payloadOmitted`), and the worker reads it just before it claims the attempt, one read
 * per attempt of such an execution (a delivery that waits for a tenant slot reads nothing;
 * workers/attemptPayload.ts).
 */
export function queueEntry(
  execution: EntryExecution,
  dueAt: Date,
  kind: EntryKind = { kind: 'waiting' },
  job?: JobDoc | JobSnapshot,
): QueueEntry {
  const executionId = execution._id.toHexString();
  const message: ExecutionMessage = { executionId, tenantId: execution.tenantId };
  let id: string;
  switch (kind.kind) {
    case 'takeover':
      id = `${executionId}-t${execution.attempt}`;
      message.takeover = true;
      break;
    case 'buffered':
      id = `${executionId}-b`;
      break;
    case 'waiting':
      id = waitingEntryId(executionId, execution.status, execution.attempt);
      break;
  }
  if (kind.kind !== 'takeover') {
    const payload = entryPayloads(execution, job);
    message.run = {
      jobId: execution.jobId.toHexString(),
      workload: execution.workload,
      status: execution.status,
      attempt: execution.attempt,
      maxAttempts: execution.maxAttempts,
      scheduledFor: execution.scheduledFor.toISOString(),
      payloadJson: payload.execution,
      ...(payload.omitted ? { payloadOmitted: payload.omitted } : {}),
      ...(execution.trigger ? { trigger: execution.trigger } : {}),
    };
    if (job) message.job = { ...jobSnapshot(job), payloadJson: payload.job };
  }
  return { id, workload: execution.workload, dueAt, message };
}

/** The payloads an entry carries, the execution's and the job's (at most one of them not null), and which one it leaves out. */
function entryPayloads(
  execution: EntryExecution,
  job: JobDoc | JobSnapshot | undefined,
): { execution: string | null; job: string | null; omitted?: WaitingRun['payloadOmitted'] } {
  if (execution.payloadOmitted) return { execution: null, job: null, omitted: execution.payloadOmitted };
  const override = execution.payloadJson;
  // An override replaces the job's payload, which then need not travel at all.
  if (override !== null)
    return inline(override) ? { execution: override, job: null } : { execution: null, job: null, omitted: 'execution' };
  const own = job?.payloadJson ?? null;
  return inline(own) ? { execution: null, job: own } : { execution: null, job: null, omitted: 'job' };
}

/** Whether a payload may travel in an entry (none always may). */
function inline(payloadJson: string | null): boolean {
  return payloadJson === null || Buffer.byteLength(payloadJson) <= INLINE_PAYLOAD_BYTES;
}

export function jobSnapshot(job: JobDoc | JobSnapshot): JobSnapshot {
  const { version, target, payloadJson, timeoutSeconds, retryPolicy, overlapPolicy, workload } = job;
  return { version, target, payloadJson, timeoutSeconds, retryPolicy, overlapPolicy, workload, flowControl: job.flowControl ?? null };
}

/** The entry of an execution BUFFER_ONE held back, released by the one that ran before it (only its id is known: the worker reads it). */
export function bufferedEntry(executionId: string, tenantId: string, workload: Workload, dueAt: Date): QueueEntry {
  return { id: `${executionId}-b`, workload, dueAt, message: { executionId, tenantId } };
}
