import { ObjectId } from 'mongodb';
import type { ExecutionDoc } from '#kairos/domain/execution.js';

/**
 * A finished execution as the worker leaves it: one succeeded attempt. The benchmarks insert these
 * (SchedulerStore.insertExecutions) to give a tenant a history without running it; `i` keeps the
 * occurrence keys of one job and instant apart.
 */
export function finishedExecution(tenantId: string, jobId: ObjectId, at: Date, i: number): ExecutionDoc {
  const startedAt = new Date(at.getTime() + 15);
  const finishedAt = new Date(at.getTime() + 40);
  return {
    _id: new ObjectId(),
    tenantId,
    jobId,
    occurrenceKey: `${jobId.toHexString()}@${at.toISOString()}#${i}`,
    trigger: 'SCHEDULE',
    status: 'SUCCEEDED',
    workload: 'IO_BOUND',
    scheduledFor: at,
    queuedAt: at,
    startedAt,
    finishedAt,
    attempt: 1,
    maxAttempts: 3,
    nextAttemptAt: null,
    attempts: [{ number: 1, startedAt, finishedAt, outcome: 'SUCCEEDED', error: null, httpStatus: null, workerId: 'bench-worker-1' }],
    error: null,
    reason: null,
    resultJson: null,
    payloadJson: null,
    deadlineAt: null,
    fencingToken: 1,
    createdAt: at,
    updatedAt: finishedAt,
  };
}
