import type { ExecutionDoc, ExecutionStatus, ExecutionTrigger } from '../domain/execution.js';
import type { JobDoc, Workload } from '../domain/job.js';

/** The job's fields an attempt needs, as they were when the entry was made (with their version). */
export type JobSnapshot = Pick<
  JobDoc,
  'version' | 'target' | 'payloadJson' | 'timeoutSeconds' | 'retryPolicy' | 'overlapPolicy' | 'workload'
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
  /** A manual trigger's payload override; null = the job's. */
  payloadJson: string | null;
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

type EntryExecution = Pick<
  ExecutionDoc,
  '_id' | 'tenantId' | 'jobId' | 'workload' | 'status' | 'attempt' | 'maxAttempts' | 'scheduledFor' | 'payloadJson'
> &
  Partial<Pick<ExecutionDoc, 'trigger'>>;

/**
 * The entry id of an execution's waiting entry: the execution id, plus the retry round (attempts
 * started before it) for a RETRYING one, since an id deduplicates adds and the first round's entry
 * may still be around. Cancelling uses the same id to remove it. BullMQ ids may not contain ':'.
 */
export function waitingEntryId(executionId: string, status: ExecutionStatus, attempt: number): string {
  return status === 'RETRYING' ? `${executionId}-r${attempt}` : executionId;
}

/** The one place queue entries are built. `job`, when given, travels with the entry (no job read to start it). */
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
    message.run = {
      jobId: execution.jobId.toHexString(),
      workload: execution.workload,
      status: execution.status,
      attempt: execution.attempt,
      maxAttempts: execution.maxAttempts,
      scheduledFor: execution.scheduledFor.toISOString(),
      payloadJson: execution.payloadJson,
      ...(execution.trigger ? { trigger: execution.trigger } : {}),
    };
    if (job) message.job = jobSnapshot(job);
  }
  return { id, workload: execution.workload, dueAt, message };
}

export function jobSnapshot(job: JobDoc | JobSnapshot): JobSnapshot {
  const { version, target, payloadJson, timeoutSeconds, retryPolicy, overlapPolicy, workload } = job;
  return { version, target, payloadJson, timeoutSeconds, retryPolicy, overlapPolicy, workload };
}

/** The entry of an execution BUFFER_ONE held back, released by the one that ran before it (only its id is known: the worker reads it). */
export function bufferedEntry(executionId: string, tenantId: string, workload: Workload, dueAt: Date): QueueEntry {
  return { id: `${executionId}-b`, workload, dueAt, message: { executionId, tenantId } };
}
