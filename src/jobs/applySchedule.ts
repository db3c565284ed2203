import type { JobDoc, Schedule } from '../domain/job.js';
import { trimSkip } from '../scheduler/budgetSkips.js';
import type { SkipRewrite } from '../store/skipRewrites.js';
import { SCHEDULE_TRIGGERS, UNSTARTED, cancelWaiting } from '../transitions/cancelWaiting.js';
import { reviveCancelled } from '../transitions/reviveCancelled.js';
import { CANCEL_REASONS } from './cancelReasons.js';
import type { JobDeps } from './jobDeps.js';

/**
 * Brings a job's executions in line with the schedule it has just been given (updateJob) or has
 * taken up again (resumeJob), `job` being as just written:
 * - cancels its waiting SCHEDULED/QUEUED schedule executions that are not occurrences of that
 *   schedule inside the look-ahead window (an occurrence both schedules share is kept as it is);
 * - puts back to SCHEDULED the ones of those occurrences that a pause or an earlier schedule change
 *   cancelled before they started: they hold the occurrence key, so the occurrence could not be
 *   materialised again otherwise and would be lost;
 * - cuts its SKIPPED budget records back to the occurrences before now (or before its new cursor,
 *   if that is earlier): the others are taken back, as waiting executions are cancelled, and the new
 *   cursor materialises again those it has (`previousSchedule`: the schedule they were written under);
 * - has the scheduling side materialise the near-term occurrences, as createJob does.
 */
export async function applySchedule(
  deps: JobDeps,
  job: JobDoc,
  reason: string,
  now: Date,
  previousSchedule: Schedule = job.schedule,
): Promise<JobDoc> {
  const planned = deps.scheduling.nearTermKeys(job, now);
  await trimSkips(deps, job, previousSchedule, now);
  await cancelWaiting(
    { ...deps, store: deps.executions },
    { jobId: job._id, statuses: UNSTARTED, triggers: SCHEDULE_TRIGGERS, exceptOccurrenceKeys: planned },
    reason,
    now,
  );
  await reviveCancelled(deps, job._id, planned, [CANCEL_REASONS.paused, CANCEL_REASONS.scheduleChanged], now);
  return deps.scheduling.jobChanged(job, now);
}

async function trimSkips(deps: JobDeps, job: JobDoc, schedule: Schedule, now: Date): Promise<void> {
  const before = job.scheduleCursor && job.scheduleCursor < now ? job.scheduleCursor : now;
  const rewrites: SkipRewrite[] = [];
  for (const record of await deps.executions.skipsReaching(job._id, before)) {
    const trim = trimSkip(schedule, record, before);
    if (trim) rewrites.push({ _id: record._id, skippedCount: record.skippedCount!, to: trim === 'gone' ? null : trim });
  }
  await deps.executions.rewriteSkips(rewrites, now);
}
