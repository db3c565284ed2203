import { ObjectId } from 'mongodb';
import type { JobDoc } from '../domain/job.js';
import { firstOccurrence } from '../domain/schedule/nextOccurrences.js';
import { ExternalIdConflictError, QuotaExceededError } from '../errors/index.js';
import { jobExternalKey } from '../domain/externalId.js';
import { toGlobalId } from '../ids/globalId.js';
import type { TenantDoc } from '../domain/tenant.js';
import { parseIdempotencyKey, parseNewJob, type JobInputFields } from './parseJobInput.js';
import type { TenantLock } from '../quotas/tenantLock.js';
import type { JobCounter } from '../quotas/jobCounter.js';
import type { JobDeps } from './jobDeps.js';
import type { JobInsert } from '../store/jobStore.js';
import { checkFlowKeyQuota } from './flowKeyQuota.js';
import { jobExclusions } from './jobExclusions.js';
import { recordJobChange } from './recordJobChange.js';

export interface CreateJobDeps extends Pick<JobDeps, 'jobs' | 'calendars' | 'scheduling' | 'logger' | 'changes'> {
  handlerNames: ReadonlySet<string>;
  /** ALLOW_PRIVATE_TARGETS: whether a target URL may name a private IP literal. */
  allowPrivateTargets: boolean;
  /**
   * Serialises the tenant's creates (and updateJob's external-id changes), so the quota check and the
   * insert, and the external-id check and the write, are not interleaved.
   */
  createLock: TenantLock;
  jobCounter: JobCounter;
}

export interface CreateJobInputFields extends JobInputFields {
  paused?: boolean | null;
  idempotencyKey?: string | null;
}

/**
 * docs/architecture.md, "The life of an occurrence", step 1: validates, takes one of the tenant's job slots (a counter, so the check costs
 * the same at any size), computes the first occurrence (the schedule cursor) and inserts the job. A first occurrence inside
 * the look-ahead window is materialised here instead of waiting for the next sweep, so a job due
 * in 2 s is not late. Nothing is stored when validation fails. An external id another job of the
 * tenant holds is a CONFLICT naming that job (upsertJob updates that job instead). A created job is
 * recorded in the change history; a repeated create that returns the job its idempotency key made
 * first records nothing.
 */
export async function createJob(
  deps: CreateJobDeps,
  tenant: Pick<TenantDoc, '_id' | 'maxJobs'>,
  input: CreateJobInputFields,
  now: Date,
): Promise<JobDoc> {
  const definition = parseNewJob(input, now, deps.handlerNames, deps.allowPrivateTargets);
  const key = parseIdempotencyKey(input.idempotencyKey);
  // Stored only when the job has some: a job without exclusions keeps the document it always had.
  const exclusions = input.exclusions?.length ? await jobExclusions(deps.calendars, input.exclusions, definition.schedule, now) : {};
  const overQuota = () =>
    new QuotaExceededError(`This tenant may have at most ${tenant.maxJobs} jobs; delete one first`, { maxJobs: tenant.maxJobs });
  const result = await deps.createLock.run(tenant._id, async (): Promise<JobInsert> => {
    if (definition.flowControl) await checkFlowKeyQuota(deps.jobs, definition.flowControl.key);
    // Checked here, under the lock, before a job slot is taken: where the shard key rules out the
    // unique index (store/indexes.ts, EXTERNAL_ID_INDEX) this check is what keeps an external id single.
    // A repeated request (same idempotency key) still answers with the job it created, as the insert would.
    const holder = definition.externalId ? await deps.jobs.findByExternalId(definition.externalId) : null;
    if (holder) {
      const first = key === null || holder.idempotencyKey === key ? null : await deps.jobs.findByIdempotencyKey(key);
      if (holder.idempotencyKey === key || first) return { job: first ?? holder, created: false, sameKey: 'idempotencyKey' };
      return { job: holder, created: false, sameKey: 'externalId' };
    }
    const _id = new ObjectId();
    const scheduleCursor = firstOccurrence(definition.schedule, now);
    const cursor = input.paused ? null : scheduleCursor;
    const [reserved] = await Promise.all([
      // null: Redis could not answer, and the quota is checked by counting instead (see below).
      deps.jobCounter.reserve(tenant._id, tenant.maxJobs, () => deps.jobs.countAll()).catch(() => null),
      // Into the due index before MongoDB (see DueIndex): a crash in between leaves an entry, not a job the
      // sweep misses. Beside the reservation (one round trip less): the entry of a job refused here costs the sweep one read.
      deps.scheduling.cursorMoving(_id, cursor),
    ]);
    if (reserved === false || (reserved === null && (await deps.jobs.countAll()) >= tenant.maxJobs)) throw overQuota();
    // An insert that fails keeps its reservation: it may have landed, and an over-count heals
    // (see JobCounter) where an under-count would let the tenant past its quota.
    const inserted = await deps.jobs.insert({
      _id,
      ...definition,
      ...exclusions,
      nameLower: definition.name.toLowerCase(),
      status: input.paused ? 'PAUSED' : scheduleCursor ? 'ACTIVE' : 'COMPLETED',
      // A paused job has no next run (as after pauseJob); resumeJob computes one from then.
      scheduleCursor: cursor,
      lastRunAt: null,
      idempotencyKey: key ?? `auto:${_id.toHexString()}`,
      externalKey: jobExternalKey(definition.externalId ?? null, _id),
      createdAt: now,
      updatedAt: now,
      version: 1,
    });
    if (!inserted.created && reserved) await deps.jobCounter.release(tenant._id).catch(() => undefined);
    // Not awaited (one round trip less): the stamp only has to land eventually, and a write that
    // fails (logged by the due index) leaves the entry `cursorMoving` wrote, healed by the leader's periodic rebuild.
    if (inserted.created) void deps.scheduling.cursorMoved(inserted.job);
    // Without Redis (no lock, no counter) concurrent creates can all pass the count: counting
    // again after the insert, one over the quota takes its own job back.
    if (inserted.created && reserved === null && (await deps.jobs.countAll()) > tenant.maxJobs) {
      await deps.jobs.deleteById(_id);
      throw overQuota();
    }
    return inserted;
  });
  if (result.created) {
    // Recorded once the job is stored, before the scheduling (which may fail and leave it to the sweep).
    await recordJobChange(deps.changes, 'CREATE_JOB', null, result.job, now);
    return deps.scheduling.jobChanged(result.job, now);
  }
  // Another job holds the external id: named, so the client can update it (or ask for an upsert).
  if (result.sameKey === 'externalId') throw new ExternalIdConflictError(definition.externalId ?? '', toGlobalId('Job', result.job._id));
  return result.job;
}
