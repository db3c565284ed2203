import type { ObjectId } from 'mongodb';
import type { ExecutionDoc } from '../domain/execution.js';
import { ConflictError, NotFoundError } from '../errors/index.js';
import { RETRYABLE, requeueExecution } from '../transitions/requeueExecution.js';
import { toGlobalId } from '../ids/globalId.js';
import type { JobDeps } from '../jobs/jobDeps.js';
import type { CancelSignals } from '../events/cancelSignals.js';
import { checkWaitingQuota } from '../quotas/waitingQuota.js';

/**
 * Queues a FAILED or CANCELLED execution again for a fresh round of attempts (the job's current
 * maxAttempts more), run at once. Its earlier attempts stay in its history. Anything else, or an
 * execution whose job was deleted, is a CONFLICT; a tenant with maxWaitingExecutions executions
 * waiting already is refused (QUOTA_EXCEEDED) before anything changes.
 */
export async function retryExecution(
  deps: Pick<JobDeps, 'jobs' | 'executions' | 'queues' | 'events' | 'logger' | 'quotas' | 'waiting' | 'changes'> & {
    cancels: CancelSignals;
  },
  id: ObjectId,
  now: Date,
): Promise<ExecutionDoc> {
  const current = await deps.executions.findById(id);
  const globalId = toGlobalId('Execution', id);
  if (!current) throw new NotFoundError('Execution', globalId);
  if (!RETRYABLE.includes(current.status)) {
    throw new ConflictError(`Only a FAILED or CANCELLED execution can be retried; ${globalId} is ${current.status}`);
  }
  const job = await deps.jobs.findById(current.jobId);
  if (!job) throw new ConflictError(`The job of execution ${globalId} was deleted; it cannot run again`);
  const { maxWaitingExecutions } = await deps.quotas.of(current.tenantId);
  await checkWaitingQuota(deps.waiting, current.tenantId, maxWaitingExecutions, deps.logger);
  // A cancel request that never met a running attempt must not cancel the new round.
  await deps.cancels.clear(id.toHexString());
  const requeued = await requeueExecution(deps, current, job, now);
  if (!requeued) throw new ConflictError(`Execution ${globalId} changed meanwhile; read it again`);
  await deps.changes.record({
    action: 'RETRY_EXECUTION',
    target: { type: 'EXECUTION', id: globalId },
    jobId: job._id,
    before: { status: current.status },
    after: { status: requeued.execution.status },
    at: now,
  });
  return requeued.execution;
}
