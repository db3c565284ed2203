import type { ObjectId } from 'mongodb';
import { backfillDueTimes, type BackfillPace } from '../domain/backfillPacing.js';
import type { ExecutionDoc } from '../domain/execution.js';
import { exclusionWindowsOf } from '../domain/exclusion.js';
import type { JobDoc } from '../domain/job.js';
import { occurrenceKey } from '../domain/occurrenceKey.js';
import { exclusionAt } from '../domain/schedule/exclusionWindows.js';
import { occurrencesBetween } from '../domain/schedule/occurrencesBetween.js';
import { BadUserInputError, NotFoundError, QuotaExceededError, TooManyOccurrencesError } from '../errors/index.js';
import { toGlobalId } from '../ids/globalId.js';
import type { ScheduleSearchBudget } from '../quotas/scheduleSearchBudget.js';
import { waitingRoom } from '../quotas/waitingQuota.js';
import { insertBackfilled } from '../transitions/insertBackfilled.js';
import type { JobDeps } from './jobDeps.js';

/** What backfillJob needs: the caller's stores, the queue and events, the quotas, and the backfill settings. */
export interface BackfillDeps extends Pick<
  JobDeps,
  'jobs' | 'executions' | 'queues' | 'events' | 'logger' | 'quotas' | 'waiting' | 'changes'
> {
  /** The tenant's budget of schedule searches (previewSchedule's): each occurrence found is one. */
  searches: Pick<ScheduleSearchBudget, 'charge'>;
  /** BACKFILL_MAX_OCCURRENCES and BACKFILL_EXECUTIONS_PER_SECOND. */
  backfill: { maxOccurrences: number; pace: BackfillPace };
}

/** What a backfill did, or would do (a dry run). */
export interface BackfillOutcome {
  job: JobDoc;
  /** The job's occurrences in the range outside its exclusion windows, whether they had an execution already or not. */
  instants: Date[];
  /** Occurrences in the range that one of the job's exclusion windows covers: neither created nor in `instants`. */
  excluded: number;
  dryRun: boolean;
  /** The executions this call created (none on a dry run). */
  created: ExecutionDoc[];
  /** Occurrences that had an execution already and were left alone; null on a dry run (nothing is read). */
  existing: number | null;
  /** When the last execution created is due to start (the pace); null when none was created. */
  lastStartAt: Date | null;
}

/**
 * backfillJob: the job's occurrences in [from, to) (domain/schedule/occurrencesBetween.ts, the
 * engine of previewSchedule and the scheduler), created as BACKFILL executions, each keyed as the
 * scheduler keys that occurrence, so that one with an execution already (the scheduler's, or an
 * earlier backfill's, in any state, SKIPPED included) is not created again and a repeated call
 * creates nothing. `to` may not be later than `now`: later occurrences are the scheduler's.
 *
 * - More than `backfill.maxOccurrences` occurrences in the range: TooManyOccurrencesError (a dry run too).
 * - Occurrences inside one of the job's exclusion windows are left out (counted in `excluded`).
 * - The occurrences found (at most `maxOccurrences`, a refused range too) are charged to the tenant's
 *   schedule search budget, previewSchedule's (RATE_LIMITED past it).
 * - `dryRun`: returns the instants, writes and reads nothing else.
 * - The new executions wait in the queue, so they count against maxWaitingExecutions: when the
 *   tenant's waiting room cannot hold them all, nothing is created (QUOTA_EXCEEDED). They do not
 *   spend the scheduled budget (maxExecutionsPerMinute), so a backfill never has the tenant's live
 *   occurrences recorded SKIPPED over budget; they take tenant slots (maxConcurrentExecutions) as they run.
 * - They are QUEUED at once, due at their nominal instant (`scheduledFor`, past), so the misfire
 *   policy, which only the scheduler's materialisation applies, never skips one: a backfill is an
 *   explicit request to run them. Their queue entries are paced (domain/backfillPacing.ts); the
 *   job's overlap policy applies when each starts, as for any occurrence.
 * - A PAUSED or COMPLETED job can be backfilled (as triggerJob runs one); a pause leaves its
 *   backfilled executions waiting, a delete cancels them with the rest. A deleted job is NOT_FOUND.
 */
export async function backfillJob(
  deps: BackfillDeps,
  id: ObjectId,
  range: { from: Date; to: Date; dryRun: boolean },
  now: Date,
): Promise<BackfillOutcome> {
  const { from, to, dryRun } = range;
  if (from.getTime() >= to.getTime()) throw new BadUserInputError('from must be earlier than to', 'to');
  if (to.getTime() > now.getTime()) {
    throw new BadUserInputError(
      'A backfill covers past occurrences only: to may not be later than now (the scheduler runs the later ones)',
      'to',
    );
  }
  const job = await deps.jobs.findById(id);
  if (!job) throw new NotFoundError('Job', toGlobalId('Job', id));
  const { maxOccurrences, pace } = deps.backfill;
  const found = occurrencesBetween(job, from, to, maxOccurrences + 1);
  // Charged before a refusal too: the searches ran on the main thread either way.
  if (found.length > 0) await deps.searches.charge(job.tenantId, Math.min(found.length, maxOccurrences));
  if (found.length > maxOccurrences) throw new TooManyOccurrencesError(maxOccurrences);
  // An occurrence inside an exclusion window is not to run (the scheduler records it SKIPPED naming
  // the window); a backfill leaves it out, as previewSchedule does.
  const windows = exclusionWindowsOf(job);
  const instants = windows.length === 0 ? found : found.filter((at) => exclusionAt(windows, at) === null);
  const excluded = found.length - instants.length;
  if (dryRun || instants.length === 0) {
    return { job, instants, excluded, dryRun, created: [], existing: dryRun ? null : 0, lastStartAt: null };
  }
  const wanted = await notYetCreated(deps, job, instants);
  const { inserted } = await insertBackfilled(deps, job, wanted, (n) => backfillDueTimes(job, n, pace, now), now);
  // Those left out for having an execution already and those the insert found there alike.
  const existing = instants.length - inserted.length;
  if (inserted.length > 0) {
    await deps.changes.record({
      action: 'BACKFILL_JOB',
      target: { type: 'JOB', id: toGlobalId('Job', job._id) },
      jobId: job._id,
      before: null,
      after: null,
      details: { from, to, created: inserted.length, existing },
      at: now,
    });
  }
  return {
    job,
    instants,
    excluded,
    dryRun,
    created: inserted,
    existing,
    lastStartAt: backfillDueTimes(job, inserted.length, pace, now).at(-1) ?? null,
  };
}

/**
 * The instants to create, checked against the tenant's waiting room: all of them when it holds them
 * (the insert skips those already there), else only those without an execution (a repeated backfill
 * needs no room), refused with QUOTA_EXCEEDED when even those do not fit. `existing` then counts
 * in the outcome as the insert's duplicates do.
 */
async function notYetCreated(deps: BackfillDeps, job: JobDoc, instants: Date[]): Promise<Date[]> {
  const { maxWaitingExecutions } = await deps.quotas.of(job.tenantId);
  const room = await waitingRoom(deps.waiting, job.tenantId, maxWaitingExecutions, deps.logger);
  if (instants.length <= room) return instants;
  const existing = await deps.executions.existingOccurrences(instants.map((at) => occurrenceKey(job._id, at)));
  const wanted = instants.filter((at) => !existing.has(occurrenceKey(job._id, at)));
  if (wanted.length > room) {
    throw new QuotaExceededError(
      `This backfill would add ${wanted.length} executions waiting to run, and this tenant may have at most ${maxWaitingExecutions} ` +
        `(maxWaitingExecutions), ${maxWaitingExecutions - room} waiting already; backfill a shorter range, or wait for some to start`,
      { maxWaitingExecutions, waitingExecutions: maxWaitingExecutions - room, backfillExecutions: wanted.length },
    );
  }
  return wanted;
}
