import { ObjectId } from 'mongodb';
import { newExecution, type ExecutionDoc } from '../domain/execution.js';
import { NotFoundError } from '../errors/index.js';
import { publishStatusEvents, statusEvent, withExecution } from '../transitions/statusEvents.js';
import { toGlobalId } from '../ids/globalId.js';
import { errorMessage } from '../logger.js';
import type { JobDeps } from './jobDeps.js';
import { queueEntry } from '../queue/queueEntry.js';
import { parsePayload } from './parseJobInput.js';
import { checkWaitingQuota } from '../quotas/waitingQuota.js';

/**
 * Runs the job now, outside its schedule: a MANUAL execution due at `now` (occurrence key
 * `manual:<its id>`), with `payload` overriding the job's for this execution (null/undefined = the
 * job's; same size limit as createJob's). It is stored already QUEUED in one write, the SCHEDULED
 * and QUEUED events are published as materialise does, and it is enqueued without delay. The
 * schedule and nextRunAt are untouched; a PAUSED or COMPLETED job can be triggered too. Should the
 * enqueue fail, the scheduler's reconcile enqueues the execution later. A tenant with
 * maxWaitingExecutions executions waiting already is refused (QUOTA_EXCEEDED) before anything is written.
 */
export async function triggerJob(deps: JobDeps, id: ObjectId, payload: unknown, now: Date): Promise<ExecutionDoc> {
  const job = await deps.jobs.findById(id);
  if (!job) throw new NotFoundError('Job', toGlobalId('Job', id));
  const payloadJson = parsePayload(payload);
  const { maxWaitingExecutions } = await deps.quotas.of(job.tenantId);
  await checkWaitingQuota(deps.waiting, job.tenantId, maxWaitingExecutions, deps.logger);
  const _id = new ObjectId();
  const fresh = newExecution(
    {
      _id,
      tenantId: job.tenantId,
      jobId: job._id,
      occurrenceKey: `manual:${_id.toHexString()}`,
      trigger: 'MANUAL',
      workload: job.workload,
      scheduledFor: now,
      maxAttempts: job.retryPolicy.maxAttempts,
      payloadJson,
    },
    now,
  );
  const execution = await deps.executions.insert({ ...fresh, status: 'QUEUED', queuedAt: now });
  await publishStatusEvents(
    deps.events,
    deps.logger,
    withExecution(execution, [statusEvent(execution, null, 'SCHEDULED', now), statusEvent(execution, 'SCHEDULED', 'QUEUED', now)]),
  );
  try {
    await deps.queues.enqueue([queueEntry(execution, now, { kind: 'waiting' }, job)]);
  } catch (error) {
    deps.logger.warn('could not enqueue a manual execution; reconcile will', { error: errorMessage(error) });
  }
  return execution;
}
