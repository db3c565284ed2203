import type { ObjectId } from 'mongodb';
import type { JobDoc } from '../domain/job.js';
import { ConflictError, NotFoundError } from '../errors/index.js';
import { toGlobalId } from '../ids/globalId.js';
import type { JobChange, JobStore } from '../store/jobStore.js';
import type { JobScheduling } from '../scheduler/jobScheduling.js';

/** Attempts of a read-modify-write before giving up with CONFLICT: the first, and one retry. */
const ATTEMPTS = 2;

/**
 * Read-modify-write of one job with a compare-and-set on its `version`. `decide` gets the job as
 * it is and returns the change to make, or null when there is nothing to do (the job is returned
 * unchanged, as `previous` too); it may throw (BAD_USER_INPUT, CONFLICT), and then nothing is written. When another
 * write lands between the read and the write, the change is decided again on the fresh job, once;
 * a second collision is CONFLICT. `previous` is the job as it was just before the write (for its change record). So concurrent changes serialise instead of overwriting each other.
 * A change of the schedule cursor is told to the scheduling side before and after the MongoDB write
 * (see JobScheduling: the due index, earlier only before), so the sweep never misses the job.
 */
export async function changeJob(
  { jobs, scheduling }: { jobs: JobStore; scheduling: Pick<JobScheduling, 'cursorMoving' | 'cursorMoved'> },
  id: ObjectId,
  now: Date,
  decide: (job: JobDoc) => JobChange | null | Promise<JobChange | null>,
): Promise<{ job: JobDoc; changed: boolean; previous: JobDoc }> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const current = await jobs.findById(id);
    if (!current) throw new NotFoundError('Job', toGlobalId('Job', id));
    const change = await decide(current);
    if (change === null) return { job: current, changed: false, previous: current };
    const moves = change.scheduleCursor !== undefined;
    if (moves) await scheduling.cursorMoving(id, change.scheduleCursor ?? null);
    // A moved cursor may land before occurrences materialised earlier (see JobDoc.rescheduledAt).
    const written = await jobs.updateIfVersion(id, current.version, {
      ...change,
      updatedAt: now,
      ...(moves ? { rescheduledAt: now } : {}),
    });
    if (written) {
      if (moves) await scheduling.cursorMoved(written);
      return { job: written, changed: true, previous: current };
    }
  }
  throw new ConflictError(`Job ${toGlobalId('Job', id)} was changed by other requests at the same time; read it again and retry`);
}
