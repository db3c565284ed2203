import { isDeepStrictEqual } from 'node:util';
import type { ObjectId } from 'mongodb';
import { parseRetryPolicy } from '../domain/backoff.js';
import { parseFlowControl, withTarget } from '../domain/flowControl.js';
import type { JobDoc, Schedule } from '../domain/job.js';
import { firstOccurrence } from '../domain/schedule/nextOccurrences.js';
import { parseSchedule } from '../domain/schedule/parseSchedule.js';
import { BadUserInputError, ExternalIdConflictError } from '../errors/index.js';
import { jobExternalKey, parseExternalId } from '../domain/externalId.js';
import { labelPairs, parseLabels } from '../domain/labels.js';
import { toGlobalId } from '../ids/globalId.js';
import { isDuplicateKey } from '../store/mongo.js';
import type { JobChange } from '../store/jobStore.js';
import { applySchedule } from './applySchedule.js';
import { CANCEL_REASONS } from './cancelReasons.js';
import { changeJob } from './changeJob.js';
import type { JobDeps } from './jobDeps.js';
import type { TenantLock } from '../quotas/tenantLock.js';
import { checkFlowKeyQuota } from './flowKeyQuota.js';
import { recordJobChange } from './recordJobChange.js';
import { checkNewSchedule, exclusionChange } from './jobExclusions.js';
import { parseDescription, parseName, parsePayload, parseTarget, parseTimeout, type JobInputFields } from './parseJobInput.js';

/**
 * Changes the fields given in `input` (undefined = omitted = kept; null clears a nullable field
 * and is BAD_USER_INPUT for the others), validated like createJob: a bad field is BAD_USER_INPUT
 * naming it, and nothing is written. `exclusions` are replaced whole and reschedule the
 * job as a schedule change does (see exclusionChange).
 * `retryPolicy` is merged field by field into the current one;
 * `schedule`, `target`, `flowControl` and `labels` are replaced whole. An update that changes nothing writes nothing
 * (and records nothing in the change history).
 * An `externalId` another job of the tenant holds is a CONFLICT naming that job; null removes the job's.
 *
 * A changed schedule recomputes the schedule cursor from `now` (kept null while the job is PAUSED; a
 * COMPLETED job becomes ACTIVE again), cancels the waiting executions of the old schedule with
 * reason "schedule changed" and materialises the new near-term occurrences (see applySchedule).
 * Other changes apply to executions that start (target, payload, timeout, policies) or are
 * materialised (workload, maxAttempts) afterwards. The write is a compare-and-set on the job's
 * version, retried once on a concurrent change (see changeJob).
 */
export async function updateJob(deps: UpdateJobDeps, id: ObjectId, input: JobInputFields, now: Date): Promise<JobDoc> {
  const externalId = parseExternalId(input.externalId);
  // Setting an external id the job does not have yet: the holder check and the write run under the
  // tenant's create lock, as createJob's check and insert do, so that they stay single where the shard
  // key rules out the unique index (store/indexes.ts, EXTERNAL_ID_INDEX). An update leaving it as it is
  // (an upsert of a known job, every time a client keeps its jobs in step) takes no lock.
  if (externalId !== null && (await deps.jobs.findById(id))?.externalId !== externalId)
    return deps.createLock.run(deps.jobs.tenantId, () => change(deps, id, input, now));
  return change(deps, id, input, now);
}

export interface UpdateJobDeps extends JobDeps {
  /** The tenant's create lock (createJob's), taken while an external id is set. */
  createLock: TenantLock;
}

async function change(deps: JobDeps, id: ObjectId, input: JobInputFields, now: Date): Promise<JobDoc> {
  let previousSchedule: Schedule | null = null;
  const { job, changed, previous } = await changeJob(deps, id, now, async (current) => {
    let change = jobChange(current, input, now, deps);
    const excluded = input.exclusions === undefined ? null : await exclusionChange(deps.calendars, current, input.exclusions, change, now);
    if (excluded) change = { ...change, ...excluded };
    else if (change?.schedule && input.exclusions === undefined) checkNewSchedule(current, change.schedule, now);
    const key = change?.flowControl?.key;
    if (key && key !== current.flowControl?.key) await checkFlowKeyQuota(deps.jobs, key);
    if (change?.externalId) await refuseHeldExternalId(deps, change.externalId, id);
    previousSchedule = change?.schedule !== undefined || excluded ? current.schedule : null;
    return change;
  }).catch(async (error: unknown) => {
    // Another job took the external id between the check above and the write (the unique index refused it).
    const externalId = parseExternalId(input.externalId);
    if (isDuplicateKey(error) && externalId) await refuseHeldExternalId(deps, externalId, id);
    throw error;
  });
  if (!changed) return job;
  await recordJobChange(deps.changes, 'UPDATE_JOB', previous, job, now);
  if (!previousSchedule) return job;
  return applySchedule(deps, job, CANCEL_REASONS.scheduleChanged, now, previousSchedule);
}

/** ExternalIdConflictError when a job of the tenant other than `self` holds `externalId`. */
async function refuseHeldExternalId(deps: Pick<JobDeps, 'jobs'>, externalId: string, self: ObjectId): Promise<void> {
  const holder = await deps.jobs.findByExternalId(externalId);
  if (holder && !holder._id.equals(self)) throw new ExternalIdConflictError(externalId, toGlobalId('Job', holder._id));
}

/** The validated difference between `current` and `input`, or null when there is none. */
function jobChange(
  current: JobDoc,
  input: JobInputFields,
  now: Date,
  rules: Pick<JobDeps, 'handlerNames' | 'allowPrivateTargets'>,
): JobChange | null {
  const change: JobChange = {};
  const differs = <K extends keyof JobChange>(field: K, value: JobDoc[K]) => {
    if (!isDeepStrictEqual(value, current[field])) change[field] = value;
  };
  if (input.name !== undefined) {
    const name = parseName(notNull(input.name, 'name'));
    differs('name', name);
    differs('nameLower', name.toLowerCase());
  }
  if (input.description !== undefined) differs('description', parseDescription(input.description));
  if (input.schedule !== undefined) {
    const schedule = parseSchedule(notNull(input.schedule, 'schedule'), now);
    if (!isDeepStrictEqual(schedule, current.schedule)) {
      const scheduleCursor = current.status === 'PAUSED' ? null : firstOccurrence(schedule, now);
      Object.assign(change, {
        schedule,
        scheduleCursor,
        status: current.status === 'PAUSED' ? 'PAUSED' : scheduleCursor ? 'ACTIVE' : 'COMPLETED',
      } satisfies JobChange);
    }
  }
  if (input.target !== undefined)
    differs('target', parseTarget(notNull(input.target, 'target'), rules.handlerNames, rules.allowPrivateTargets));
  if (input.payload !== undefined) differs('payloadJson', parsePayload(input.payload));
  if (input.workload !== undefined) differs('workload', notNull(input.workload, 'workload'));
  if (input.timeoutSeconds !== undefined) differs('timeoutSeconds', parseTimeout(notNull(input.timeoutSeconds, 'timeoutSeconds')));
  if (input.retryPolicy !== undefined)
    differs('retryPolicy', parseRetryPolicy(notNull(input.retryPolicy, 'retryPolicy'), current.retryPolicy));
  if (input.overlapPolicy !== undefined) differs('overlapPolicy', notNull(input.overlapPolicy, 'overlapPolicy'));
  if (input.misfirePolicy !== undefined) differs('misfirePolicy', notNull(input.misfirePolicy, 'misfirePolicy'));
  // A key taken from the target follows it; a given key, or none, stays.
  const target = change.target ?? current.target;
  if (input.flowControl !== undefined) differs('flowControl', input.flowControl && parseFlowControl(input.flowControl, target));
  else if (change.target && current.flowControl) differs('flowControl', withTarget(current.flowControl, target));
  if (input.labels !== undefined) {
    // null clears them, as an empty list does; a job stored before labels existed has none.
    const pairs = labelPairs(parseLabels(input.labels));
    if (!isDeepStrictEqual(pairs, current.labelPairs ?? [])) change.labelPairs = pairs;
  }
  if (input.externalId !== undefined) {
    const externalId = parseExternalId(input.externalId);
    if (externalId !== (current.externalId ?? null))
      Object.assign(change, { externalId, externalKey: jobExternalKey(externalId, current._id) });
  }
  return Object.keys(change).length > 0 ? change : null;
}

/** An explicit null for a field the job cannot be without. */
function notNull<T>(value: T | null, field: string): T {
  if (value === null) throw new BadUserInputError(`${field} cannot be null; omit it to keep the current value`, field);
  return value;
}
