import { ObjectId } from 'mongodb';
import type { JobDoc } from '../domain/job.js';
import { firstOccurrence } from '../domain/schedule/nextOccurrences.js';
import { QuotaExceededError } from '../errors/index.js';
import type { TenantDoc } from '../domain/tenant.js';
import { materialiseNearTerm, type NearTermDeps } from './materialiseNearTerm.js';
import { parseIdempotencyKey, parseNewJob, type JobInputFields } from './parseJobInput.js';
import type { TenantLock } from '../quotas/tenantLock.js';

export interface CreateJobDeps extends NearTermDeps {
  handlerNames: ReadonlySet<string>;
  /** ALLOW_PRIVATE_TARGETS: whether a target URL may name a private IP literal. */
  allowPrivateTargets: boolean;
  /** Serialises the tenant's creates, so the quota check and the insert are not interleaved. */
  createLock: TenantLock;
}

export interface CreateJobInputFields extends JobInputFields {
  paused?: boolean | null;
  idempotencyKey?: string | null;
}

/**
 * DESIGN.md step 1: validates, computes the first occurrence (the schedule cursor) and inserts the job. A first occurrence inside
 * the look-ahead window is materialised here instead of waiting for the next sweep, so a job due
 * in 2 s is not late. Nothing is stored when validation fails.
 */
export async function createJob(deps: CreateJobDeps, tenant: TenantDoc, input: CreateJobInputFields, now: Date): Promise<JobDoc> {
  const definition = parseNewJob(input, now, deps.handlerNames, deps.allowPrivateTargets);
  const key = parseIdempotencyKey(input.idempotencyKey);
  const overQuota = () => new QuotaExceededError(`This tenant may have at most ${tenant.maxJobs} jobs; delete one first`, { maxJobs: tenant.maxJobs });
  const { job, created } = await deps.createLock.run(tenant._id, async () => {
    if ((await deps.jobs.count()) >= tenant.maxJobs) throw overQuota();
    const _id = new ObjectId();
    const scheduleCursor = firstOccurrence(definition.schedule, now);
    const inserted = await deps.jobs.insert({
      _id,
      ...definition,
      nameLower: definition.name.toLowerCase(),
      status: input.paused ? 'PAUSED' : scheduleCursor ? 'ACTIVE' : 'COMPLETED',
      // A paused job has no next run (as after pauseJob); resumeJob computes one from then.
      scheduleCursor: input.paused ? null : scheduleCursor,
      lastRunAt: null,
      idempotencyKey: key ?? `auto:${_id.toHexString()}`,
      createdAt: now,
      updatedAt: now,
      version: 1,
    });
    // Without the lock (Redis down, or held too long) concurrent creates can all pass the count:
    // counting again after the insert, one over the quota takes its own job back.
    if (inserted.created && (await deps.jobs.count()) > tenant.maxJobs) {
      await deps.jobs.deleteById(_id);
      throw overQuota();
    }
    return inserted;
  });
  if (!created) return job;
  return materialiseNearTerm(deps, job, now);
}
