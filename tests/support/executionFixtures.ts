import { ObjectId } from 'mongodb';
import { newExecution, type AttemptDoc, type AttemptEnd, type ExecutionDoc, type ExecutionStatus } from '../../src/domain/execution.js';
import type { JobSnapshot } from '../../src/queue/queueEntry.js';
import type { Run } from '../../src/workers/run.js';

/*
 * Execution documents and worker-stage inputs in given states, for unit tests of pure logic: fixed
 * ids and instants, so a test can spell out the events and requests it expects; no database.
 */

/** The fixed instant the worker stage's tests count from: when their execution is due. */
export const T0 = new Date('2030-01-01T00:00:00.000Z');

/** `ms` after T0. */
export function afterT0(ms: number): Date {
  return new Date(T0.getTime() + ms);
}

/** The one execution (and its job, of tenant `acme`) the worker stage's tests follow. */
export const EXECUTION_ID = '650000000000000000000001';
export const JOB_ID = '650000000000000000000002';

/** A SCHEDULE occurrence of a new job due and created at `at` (IO_BOUND, 3 attempts, tenant t1, SCHEDULED), with `fields` over it. */
export function executionDoc(at: Date, fields: Partial<ExecutionDoc> = {}): ExecutionDoc {
  const fresh = newExecution(
    {
      tenantId: 't1',
      jobId: new ObjectId(),
      occurrenceKey: 'k',
      trigger: 'SCHEDULE',
      workload: 'IO_BOUND',
      scheduledFor: at,
      maxAttempts: 3,
    },
    at,
  );
  return { ...fresh, ...fields };
}

/**
 * EXECUTION_ID in `status` with `attempt` attempts started at `startedAt` (T0 unless given) by a
 * worker now gone: the last one still open while RUNNING, the earlier ones FAILED (ended at their
 * start). Its `startedAt` is its first attempt's.
 */
export function trackedExecution(
  status: ExecutionStatus,
  attempt: number,
  { maxAttempts = 3, startedAt = T0 }: { maxAttempts?: number; startedAt?: Date } = {},
): ExecutionDoc {
  const attempts = Array.from({ length: attempt }, (_, i): AttemptDoc => {
    const open = status === 'RUNNING' && i + 1 === attempt;
    return {
      number: i + 1,
      startedAt,
      finishedAt: open ? null : startedAt,
      outcome: open ? null : 'FAILED',
      error: null,
      httpStatus: null,
      workerId: 'gone',
    };
  });
  return executionDoc(T0, {
    _id: new ObjectId(EXECUTION_ID),
    tenantId: 'acme',
    jobId: new ObjectId(JOB_ID),
    maxAttempts,
    status,
    attempt,
    attempts,
    startedAt: attempt > 0 ? startedAt : null,
  });
}

/** EXECUTION_ID as a worker's delivery holds it: QUEUED, no attempt started, due at T0, its job to be read; `fields` over it. */
export function queuedRun(fields: Partial<Run> = {}): Run {
  return {
    _id: new ObjectId(EXECUTION_ID),
    executionId: EXECUTION_ID,
    tenantId: 'acme',
    jobId: new ObjectId(JOB_ID),
    workload: 'IO_BOUND',
    status: 'QUEUED',
    attempt: 0,
    maxAttempts: 3,
    scheduledFor: T0,
    payloadJson: null,
    job: null,
    trigger: 'SCHEDULE',
    ...fields,
  };
}

/** A job as a queue entry carries it: the `noop` handler, 10 s timeout, 3 attempts from 1 s apart doubling, ALLOW; `fields` over it. */
export function jobSnapshot(fields: Partial<JobSnapshot> = {}): JobSnapshot {
  return {
    version: 1,
    target: { kind: 'HANDLER', handler: 'noop' },
    payloadJson: null,
    timeoutSeconds: 10,
    retryPolicy: { maxAttempts: 3, initialBackoffSeconds: 1, maxBackoffSeconds: 60, backoffMultiplier: 2 },
    overlapPolicy: 'ALLOW',
    workload: 'IO_BOUND',
    ...fields,
  };
}

/** A successful attempt's end as it is written: the execution SUCCEEDED, with the result `{"ok":true}` of an HTTP 200. */
export const SUCCEEDED_END: AttemptEnd = {
  status: 'SUCCEEDED',
  nextAttemptAt: null,
  final: true,
  error: null,
  reason: null,
  resultJson: '{"ok":true}',
  outcome: 'SUCCEEDED',
  httpStatus: 200,
};
