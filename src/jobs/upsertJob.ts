import type { JobDoc } from '../domain/job.js';
import { parseExternalId } from '../domain/externalId.js';
import type { TenantDoc } from '../domain/tenant.js';
import { BadUserInputError, ConflictError, ExternalIdConflictError } from '../errors/index.js';
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
  const update = (id: JobDoc['_id']) => untilUnraced(() => updateJob(deps, id, fields, now));
  const existing = await deps.jobs.findByExternalId(externalId);
  if (existing) return update(existing._id);
  try {
    return await createJob(deps, tenant, input, now);
  } catch (error) {
    if (!(error instanceof ExternalIdConflictError)) throw error;
    const holder = await deps.jobs.findByExternalId(externalId);
    if (!holder) throw error;
    return update(holder._id);
  }
}

/** Update attempts of an upsert: updateJob gives up with CONFLICT after two raced read-modify-writes. */
const UPSERT_ATTEMPTS = 5;

/**
 * Runs `update` again while it loses a race with other writes of the job (CONFLICT, not an external
 * id held by another job): an upsert asks for the job to end up so, and racing upserts of one
 * external id (a client retrying, several producers) should each land, the last one's fields winning.
 */
async function untilUnraced(update: () => Promise<JobDoc>): Promise<JobDoc> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await update();
    } catch (error) {
      const raced = error instanceof ConflictError && !(error instanceof ExternalIdConflictError);
      if (!raced || attempt >= UPSERT_ATTEMPTS) throw error;
    }
  }
}
