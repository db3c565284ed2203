import { ObjectId } from 'mongodb';
import type { JobDoc } from '../domain/job.js';
import { firstOccurrence } from '../domain/schedule/nextOccurrences.js';
import { QuotaExceededError } from '../errors/index.js';
import type { Logger } from '../logger.js';
import { errorMessage } from '../logger.js';
import { materialise, type MaterialiseDeps } from '../scheduler/materialise.js';
import type { JobStore } from '../store/jobStore.js';
import type { TenantDoc } from '../domain/tenant.js';
import { parseIdempotencyKey, parseNewJob, type JobInputFields } from './parseJobInput.js';

export interface CreateJobDeps {
  jobs: JobStore;
  materialise: MaterialiseDeps;
  handlerNames: ReadonlySet<string>;
  /** The scheduler's look-ahead: a first occurrence inside it is materialised at once. */
  lookAheadMs: number;
  logger: Logger;
}

export interface CreateJobInputFields extends JobInputFields {
  paused?: boolean | null;
  idempotencyKey?: string | null;
}

/**
 * DESIGN.md step 1: validates, computes nextRunAt and inserts the job. A first occurrence inside
 * the look-ahead window is materialised here instead of waiting for the next sweep, so a job due
 * in 2 s is not late. Nothing is stored when validation fails.
 */
export async function createJob(deps: CreateJobDeps, tenant: TenantDoc, input: CreateJobInputFields, now: Date): Promise<JobDoc> {
  const definition = parseNewJob(input, now, deps.handlerNames);
  const key = parseIdempotencyKey(input.idempotencyKey);
  if ((await deps.jobs.count()) >= tenant.maxJobs) {
    throw new QuotaExceededError(`This tenant may have at most ${tenant.maxJobs} jobs; delete one first`, { maxJobs: tenant.maxJobs });
  }
  const _id = new ObjectId();
  const nextRunAt = firstOccurrence(definition.schedule, now);
  const { job, created } = await deps.jobs.insert({
    _id,
    ...definition,
    nameLower: definition.name.toLowerCase(),
    status: input.paused ? 'PAUSED' : nextRunAt ? 'ACTIVE' : 'COMPLETED',
    nextRunAt,
    lastRunAt: null,
    idempotencyKey: key ?? `auto:${_id.toHexString()}`,
    createdAt: now,
    updatedAt: now,
    version: 1,
  });
  if (!created || job.status !== 'ACTIVE' || !job.nextRunAt) return job;
  const horizon = new Date(now.getTime() + deps.lookAheadMs);
  if (job.nextRunAt > horizon) return job;
  try {
    await materialise(deps.materialise, [job], now, horizon, 0);
  } catch (error) {
    // The job is stored; the scheduler's next sweep materialises what this could not.
    deps.logger.warn('near-term materialisation failed; leaving it to the sweep', { error: errorMessage(error) });
  }
  return (await deps.jobs.findById(job._id)) ?? job;
}
