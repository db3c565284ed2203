import type { ObjectId } from 'mongodb';
import type { ExecutionDoc } from '../domain/execution.js';
import { NotFoundError } from '../errors/index.js';
import { toGlobalId } from '../ids/globalId.js';
import { insertTriggered } from '../transitions/insertTriggered.js';
import type { JobDeps } from './jobDeps.js';
import { parsePayload } from './parseJobInput.js';
import { checkWaitingQuota } from '../quotas/waitingQuota.js';

/**
 * Runs the job now, outside its schedule: a MANUAL execution due at `now`, with `payload`
 * overriding the job's for this execution (null/undefined = the job's; same size limit as
 * createJob's), stored already QUEUED, announced and enqueued without delay (insertTriggered). The
 * schedule and nextRunAt are untouched; a PAUSED or COMPLETED job can be triggered too. A tenant
 * with maxWaitingExecutions executions waiting already is refused (QUOTA_EXCEEDED) before anything
 * is written.
 */
export async function triggerJob(deps: JobDeps, id: ObjectId, payload: unknown, now: Date): Promise<ExecutionDoc> {
  const job = await deps.jobs.findById(id);
  if (!job) throw new NotFoundError('Job', toGlobalId('Job', id));
  const payloadJson = parsePayload(payload);
  const { maxWaitingExecutions } = await deps.quotas.of(job.tenantId);
  await checkWaitingQuota(deps.waiting, job.tenantId, maxWaitingExecutions, deps.logger);
  const { execution } = await insertTriggered(deps, job, payloadJson, now);
  await deps.changes.record({
    action: 'TRIGGER_JOB',
    target: { type: 'EXECUTION', id: toGlobalId('Execution', execution._id) },
    jobId: job._id,
    before: null,
    after: { status: execution.status },
    // The override, when one was given (the job's own payload is in the job's records).
    details: payloadJson === null ? null : { payload: JSON.parse(payloadJson) as unknown },
    at: now,
  });
  return execution;
}
