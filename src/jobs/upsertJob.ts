import type { JobDoc } from '../domain/job.js';
import { parseExternalId } from '../domain/externalId.js';
import type { TenantDoc } from '../domain/tenant.js';
import { BadUserInputError, ExternalIdConflictError } from '../errors/index.js';
import { createJob, type CreateJobDeps, type CreateJobInputFields } from './createJob.js';
import type { JobDeps } from './jobDeps.js';
import { updateJob } from './updateJob.js';

/**
 * createJob with `upsert: true`: the tenant's job with the input's `externalId` is updated with the
 * input's fields, as updateJob applies them (fields given replace, fields omitted keep their value;
 * `paused` and `idempotencyKey` apply to a create only), or a job is created when none has it. Two
 * upserts racing on a new external id create one job: createJob refuses the second (its check under
 * the tenant's create lock, or the unique index), which then updates the job the first created.
 */
export async function upsertJob(
  deps: CreateJobDeps & JobDeps,
  tenant: Pick<TenantDoc, '_id' | 'maxJobs'>,
  input: CreateJobInputFields,
  now: Date,
): Promise<JobDoc> {
  const externalId = parseExternalId(input.externalId);
  if (externalId === null) throw new BadUserInputError('upsert needs an externalId: the job to update is found by it', 'upsert');
  const { paused: _paused, idempotencyKey: _key, ...fields } = input;
  const existing = await deps.jobs.findByExternalId(externalId);
  if (existing) return updateJob(deps, existing._id, fields, now);
  try {
    return await createJob(deps, tenant, input, now);
  } catch (error) {
    if (!(error instanceof ExternalIdConflictError)) throw error;
    const holder = await deps.jobs.findByExternalId(externalId);
    if (!holder) throw error;
    return updateJob(deps, holder._id, fields, now);
  }
}
