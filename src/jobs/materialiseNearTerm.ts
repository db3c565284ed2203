import type { JobDoc } from '../domain/job.js';
import type { Logger } from '../logger.js';
import { errorMessage } from '../logger.js';
import { materialise, occurrenceKey, planOccurrences, type MaterialiseDeps } from '../scheduler/materialise.js';
import type { JobStore } from '../store/jobStore.js';

export interface NearTermDeps {
  jobs: JobStore;
  materialise: MaterialiseDeps;
  /** The scheduler's look-ahead: an occurrence inside it is materialised at once. */
  lookAheadMs: number;
  logger: Logger;
}

/** The end of the look-ahead window that starts at `now`. */
export function nearTermHorizon(deps: Pick<NearTermDeps, 'lookAheadMs'>, now: Date): Date {
  return new Date(now.getTime() + deps.lookAheadMs);
}

/** Occurrence keys of the occurrences an ACTIVE job has inside the look-ahead window (none otherwise). */
export function nearTermOccurrenceKeys(deps: Pick<NearTermDeps, 'lookAheadMs'>, job: JobDoc, now: Date): string[] {
  if (job.status !== 'ACTIVE' || !job.scheduleCursor) return [];
  // As materialiseNearTerm plans them: no misfire threshold, since the API materialises no missed occurrences.
  return planOccurrences(job, now, nearTermHorizon(deps, now), Infinity).occurrences.map((o) => occurrenceKey(job._id, o.nominal));
}

/**
 * When an ACTIVE job's scheduleCursor falls inside the look-ahead window, materialises its occurrences
 * there at once instead of waiting for the next sweep, so a job due in 2 s is not late. A failure is
 * logged and left to the sweep (the job is stored either way). Returns the job as it is afterwards:
 * as its own advance wrote it when that landed (no read back, a round trip saved on every create), else read.
 */
export async function materialiseNearTerm(deps: NearTermDeps, job: JobDoc, now: Date): Promise<JobDoc> {
  if (job.status !== 'ACTIVE' || !job.scheduleCursor) return job;
  const horizon = nearTermHorizon(deps, now);
  if (job.scheduleCursor > horizon) return job;
  try {
    const fencingToken = 0;
    const { states, advanced } = await materialise(deps.materialise, [job], now, horizon, fencingToken);
    const id = job._id.toHexString();
    const state = states.get(id);
    // The fields SchedulerStore.advanceJobs sets, with the values it set.
    if (state && advanced.has(id)) return { ...job, ...state, updatedAt: now, fencingToken };
  } catch (error) {
    deps.logger.warn('near-term materialisation failed; leaving it to the sweep', { error: errorMessage(error) });
  }
  return (await deps.jobs.findById(job._id)) ?? job;
}
