import type { ObjectId } from 'mongodb';
import type { JobDoc } from '../domain/job.js';
import { ConflictError } from '../errors/index.js';
import { toGlobalId } from '../ids/globalId.js';
import { SCHEDULE_TRIGGERS, UNSTARTED, cancelWaiting } from '../transitions/cancelWaiting.js';
import { CANCEL_REASONS } from './cancelReasons.js';
import { changeJob } from './changeJob.js';
import type { JobDeps } from './jobDeps.js';
import { recordJobChange } from './recordJobChange.js';

/**
 * ACTIVE → PAUSED. scheduleCursor becomes null: a paused job has no next run, resumeJob computes a fresh
 * one from its own time, and a scheduler sweep that read the job before the pause cannot advance
 * it any more (its compare-and-set is on scheduleCursor). The job's waiting schedule executions
 * (SCHEDULED, QUEUED) are cancelled with reason "job paused"; manual ones and running ones go on.
 * Pausing a PAUSED job changes nothing (it only cancels any schedule execution still waiting, which
 * completes an earlier pause that failed half-way); a COMPLETED job is CONFLICT.
 */
export async function pauseJob(deps: JobDeps, id: ObjectId, now: Date): Promise<JobDoc> {
  const { job, changed, previous } = await changeJob(deps, id, now, (current) => {
    if (current.status === 'PAUSED') return null;
    if (current.status === 'COMPLETED') {
      throw new ConflictError(`Job ${toGlobalId('Job', id)} is COMPLETED: it has no occurrence left to pause`);
    }
    return { status: 'PAUSED', scheduleCursor: null };
  });
  if (changed) await recordJobChange(deps.changes, 'PAUSE_JOB', previous, job, now);
  await cancelWaiting(
    { ...deps, store: deps.executions },
    { jobId: id, statuses: UNSTARTED, triggers: SCHEDULE_TRIGGERS },
    CANCEL_REASONS.paused,
    now,
  );
  return job;
}
