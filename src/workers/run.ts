import { ObjectId } from 'mongodb';
import type { ExecutionDoc, ExecutionStatus, ExecutionTrigger } from '../domain/execution.js';
import type { ExecutionMessage, JobSnapshot, WaitingRun } from '../queue/queueEntry.js';

/** A waiting execution about to be run: as its queue entry described it, or as read from MongoDB. */
export interface Run {
  _id: ObjectId;
  executionId: string;
  tenantId: string;
  jobId: ObjectId;
  workload: ExecutionDoc['workload'];
  /** The status and attempts started the claim expects. */
  status: ExecutionStatus;
  attempt: number;
  maxAttempts: number;
  scheduledFor: Date;
  payloadJson: string | null;
  /** Where the payload its entry left out is (queueEntry.ts), read just before the attempt is claimed (attemptPayload.ts). */
  payloadOmitted?: 'execution' | 'job';
  /** The job as the entry carried it; null = read it. */
  job: JobSnapshot | null;
  /** For metrics; unknown on entries made before queue entries carried it. */
  trigger?: ExecutionTrigger;
  /** When a RETRYING execution read from MongoDB may start its next attempt (its backoff, or the receiver's Retry-After). */
  nextAttemptAt?: Date | null;
}

/**
 * When a run read from MongoDB may not start yet: a RETRYING execution before its nextAttemptAt. A
 * stale or duplicate entry (made from a picture taken before its last attempt ended, or re-enqueued
 * by reconcile) would otherwise start the retry at once, cutting its backoff or Retry-After short.
 */
export function notDueBefore(run: Pick<Run, 'status' | 'nextAttemptAt'>, now: Date): Date | null {
  return run.status === 'RETRYING' && run.nextAttemptAt && run.nextAttemptAt > now ? run.nextAttemptAt : null;
}

/** The run a queue entry describes (its picture may be stale: the claim then misses). */
export function runOfEntry(message: ExecutionMessage, run: WaitingRun): Run {
  return {
    _id: new ObjectId(message.executionId),
    executionId: message.executionId,
    tenantId: message.tenantId,
    jobId: new ObjectId(run.jobId),
    workload: run.workload,
    status: run.status,
    attempt: run.attempt,
    maxAttempts: run.maxAttempts,
    scheduledFor: new Date(run.scheduledFor),
    payloadJson: run.payloadJson,
    payloadOmitted: run.payloadOmitted,
    job: message.job ?? null,
    trigger: run.trigger,
  };
}
