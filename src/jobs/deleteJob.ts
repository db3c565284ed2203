import type { ObjectId } from 'mongodb';
import { NotFoundError } from '../errors/index.js';
import { toGlobalId } from '../ids/globalId.js';
import { PENDING, cancelWaiting } from '../transitions/cancelWaiting.js';
import { CANCEL_REASONS } from './cancelReasons.js';
import type { JobDeps } from './jobDeps.js';
import { errorMessage } from '../logger.js';
import { recordJobChange } from './recordJobChange.js';
import { deleteRulesOfJob } from '../alerts/alertSettings.js';

/**
 * Deletes the job document, then cancels its SCHEDULED, QUEUED and RETRYING executions (any
 * trigger) with reason "job deleted". Running ones finish. Executions stay readable, with a null
 * `job`. The job goes first so that nothing materialises new occurrences of it afterwards; should
 * the cancellation not happen (a crash in between), a worker cancels each leftover when it gets to
 * it, finding no job.
 */
export async function deleteJob(deps: JobDeps, id: ObjectId, now: Date): Promise<void> {
  const deleted = await deps.jobs.deleteById(id);
  if (!deleted) throw new NotFoundError('Job', toGlobalId('Job', id));
  // Right after the delete: a crash in between over-counts (healed by a recount) rather than
  // under-counts, and any wait in between lets a concurrent create's recount at the quota
  // (JobCounter) see the job gone before its release, and under-count.
  await deps.jobCounter
    .release(deps.jobs.tenantId)
    .catch((error: unknown) => deps.logger.warn('could not release a job slot', { error: errorMessage(error) }));
  // Its record keeps the job's id, so the history of a deleted job stays readable (changes(filter: { jobId })).
  await recordJobChange(deps.changes, 'DELETE_JOB', deleted, null, now);
  await cancelWaiting({ ...deps, store: deps.executions }, { jobId: id, statuses: PENDING }, CANCEL_REASONS.deleted, now);
  await deleteRulesOfJob({ settings: deps.alertRules, changes: deps.changes }, id, now);
}
