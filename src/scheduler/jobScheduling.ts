import type { ObjectId } from 'mongodb';
import type { JobDoc } from '../domain/job.js';
import { errorMessage } from '../logger.js';
import type { SchedulerStore } from '../store/schedulerStore.js';
import type { DueIndex } from './dueIndex.js';
import { materialise, type PassDeps } from './materialise.js';
import { occurrenceKey, planOccurrences } from './planOccurrences.js';

/**
 * The scheduling side as the API's job operations see it, and all they get of it: they tell it
 * about a job they write, by the job's id or the job as written, and never hold the scheduler's
 * cross-tenant store or due index. Built once per process (`jobScheduling`) and handed to the api
 * through its dependencies.
 */
export interface JobScheduling {
  /**
   * Before a MongoDB write that gives job `jobId` the cursor `at` (null: none): its due-index entry
   * moves earlier if need be, so the sweep never misses the job (DueIndex.expect).
   */
  cursorMoving(jobId: ObjectId, at: Date | null): Promise<void>;
  /**
   * After that write, with the job as written: its entry goes to its cursor if ACTIVE (else out),
   * stamped so that a sweep that read the entry before does not undo it (DueIndex.touch). Never
   * rejects: a failed write is logged, and the leader's periodic rebuild heals it.
   */
  cursorMoved(job: Pick<JobDoc, '_id' | 'status' | 'scheduleCursor'>): Promise<void>;
  /** The occurrence keys of the occurrences an ACTIVE job has within the look-ahead from `now` (none otherwise): what `jobChanged` materialises. */
  nearTermKeys(job: JobDoc, now: Date): string[];
  /**
   * `job` (as just written) was created, resumed or given a new schedule: when its cursor falls
   * within the look-ahead, its occurrences there are materialised at once instead of at the next
   * sweep, each handed to the queue with its exact delay, so a job due in 2 s is not late. A failure
   * is logged and left to the sweep (the job is stored either way). Returns the job as it is
   * afterwards: as its advance wrote it when that landed (no read back, a round trip saved on every
   * create), else read.
   */
  jobChanged(job: JobDoc, now: Date): Promise<JobDoc>;
}

/**
 * The fencing token of the api's materialisations: it holds no lease, and 0 is below every
 * leader's token. Their writes are the same compare-and-sets as the sweep's (the unique occurrence
 * key, the cursor's advance on the version read), so they race a leader safely.
 */
const API_FENCING_TOKEN = 0;

export interface JobSchedulingOptions {
  /** The scheduler's look-ahead (config LOOK_AHEAD_MS): an occurrence within it is materialised at once. */
  lookAheadMs: number;
}

/** What the api's JobScheduling runs on: the scheduler's materialisation (MaterialiseDeps fits), the due index, and the job read after a pass. */
export interface JobSchedulingDeps extends PassDeps {
  store: PassDeps['store'] & Pick<SchedulerStore, 'findJobsByIds'>;
  dueIndex: Pick<DueIndex, 'expect' | 'touch'>;
}

/** The api's JobScheduling, materialising through the scheduler's own materialise and due index. */
export function jobScheduling(deps: JobSchedulingDeps, options: JobSchedulingOptions): JobScheduling {
  const horizonOf = (now: Date) => new Date(now.getTime() + options.lookAheadMs);
  return {
    cursorMoving: (jobId, at) => deps.dueIndex.expect(jobId, at),
    cursorMoved: (job) => deps.dueIndex.touch(job._id, job.status === 'ACTIVE' ? job.scheduleCursor : null),
    nearTermKeys: (job, now) => {
      if (job.status !== 'ACTIVE' || !job.scheduleCursor) return [];
      // As jobChanged plans them: no misfire threshold, since the API materialises no missed occurrences.
      // An excluded occurrence is not one to keep waiting (an exclusion added by the change cancels it).
      return planOccurrences(job, now, horizonOf(now), Infinity)
        .occurrences.filter((o) => o.excludedBy === undefined)
        .map((o) => occurrenceKey(job._id, o.nominal));
    },
    jobChanged: async (job, now) => {
      if (job.status !== 'ACTIVE' || !job.scheduleCursor) return job;
      const horizon = horizonOf(now);
      if (job.scheduleCursor > horizon) return job;
      try {
        const { states, advanced } = await materialise(deps, [job], now, horizon, API_FENCING_TOKEN);
        const id = job._id.toHexString();
        const state = states.get(id);
        // The fields SchedulerStore.advanceJobs sets, with the values it set.
        if (state && advanced.has(id)) return { ...job, ...state, updatedAt: now, fencingToken: API_FENCING_TOKEN };
      } catch (error) {
        deps.logger.warn('near-term materialisation failed; leaving it to the sweep', { error: errorMessage(error) });
      }
      // By the id the caller's tenant-scoped store gave it; the tenant is checked all the same.
      const [current] = await deps.store.findJobsByIds([job._id]);
      return current?.tenantId === job.tenantId ? current : job;
    },
  };
}
