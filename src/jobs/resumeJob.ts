import type { ObjectId } from 'mongodb';
import type { JobDoc } from '../domain/job.js';
import { firstOccurrence } from '../domain/schedule/nextOccurrences.js';
import { ConflictError } from '../errors/index.js';
import { toGlobalId } from '../ids/globalId.js';
import { applySchedule } from './applySchedule.js';
import { CANCEL_REASONS } from './cancelReasons.js';
import { changeJob } from './changeJob.js';
import type { JobDeps } from './jobDeps.js';
import { recordJobChange } from './recordJobChange.js';

/**
 * PAUSED → ACTIVE with scheduleCursor recomputed from `now` (firstOccurrence), so occurrences missed
 * while paused are not run in a burst; near-term occurrences are materialised at once (see
 * applySchedule). A one-off whose time passed while paused runs once, at once; a schedule whose
 * endAt passed while paused becomes COMPLETED. Resuming an ACTIVE job changes nothing; a COMPLETED
 * job is CONFLICT.
 */
export async function resumeJob(deps: JobDeps, id: ObjectId, now: Date): Promise<JobDoc> {
  const { job, changed, previous } = await changeJob(deps, id, now, (current) => {
    if (current.status === 'ACTIVE') return null;
    if (current.status === 'COMPLETED') {
      throw new ConflictError(
        `Job ${toGlobalId('Job', id)} is COMPLETED and cannot be resumed: it has no occurrence left. Give it a new schedule with updateJob, or run it with triggerJob`,
      );
    }
    const scheduleCursor = firstOccurrence(current.schedule, now);
    return { status: scheduleCursor ? 'ACTIVE' : 'COMPLETED', scheduleCursor };
  });
  if (!changed) return job;
  await recordJobChange(deps.changes, 'RESUME_JOB', previous, job, now);
  return applySchedule(deps, job, CANCEL_REASONS.paused, now);
}
