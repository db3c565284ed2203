import type { ObjectId } from 'mongodb';
import { excludedReason, exclusionWindowsOf } from '../domain/exclusion.js';
import type { JobDoc, JobStatus } from '../domain/job.js';
import { exclusionAt } from '../domain/schedule/exclusionWindows.js';
import { firstAtOrAfter, nextAfter } from '../domain/schedule/nextOccurrences.js';

/** At most this many occurrences of one job are materialised per pass; the rest wait for the next pass. */
export const MAX_OCCURRENCES_PER_JOB = 100;

/** At most this many missed occurrences of one job and gap are recorded (run or SKIPPED). */
export const MAX_MISSED_RECORDED = 100;

/** One occurrence to write: run it (`skippedReason` null) or record it as SKIPPED. */
export interface PlannedOccurrence {
  nominal: Date;
  trigger: 'SCHEDULE' | 'CATCH_UP';
  /** When it is due; null = the nominal instant plus the job's jitter. */
  dueAt: Date | null;
  skippedReason: string | null;
  /** The name of the exclusion window it lies in (then it is SKIPPED, its reason naming it); absent otherwise. */
  excludedBy?: string;
}

const MISSED = 'missed while the scheduler was down';

/**
 * What to materialise for `job` now: its occurrences from scheduleCursor up to `horizon`, and where its
 * schedule goes next. Occurrences older than `now - misfireThresholdMs` were missed (no leader ran
 * the sweep in time) and follow the job's misfire policy: RUN_ALL runs each as CATCH_UP, RUN_ONCE
 * runs the last one as CATCH_UP and records the others SKIPPED, SKIP records them all SKIPPED. At
 * most MAX_MISSED_RECORDED are recorded per gap; the rest of a longer gap is jumped over. An
 * occurrence inside one of the job's exclusion windows (domain/exclusion.ts) is planned SKIPPED with
 * `excludedBy`, whatever else; jobPass.ts groups a window's into one record.
 */
export function planOccurrences(
  job: JobDoc,
  now: Date,
  horizon: Date,
  misfireThresholdMs: number,
): { occurrences: PlannedOccurrence[]; scheduleCursor: Date | null; status: JobStatus } {
  const occurrences: PlannedOccurrence[] = [];
  const cutoff = new Date(now.getTime() - misfireThresholdMs);
  let cursor = job.scheduleCursor;
  const missed: Date[] = [];
  while (cursor && cursor < cutoff && missed.length < MAX_MISSED_RECORDED) {
    missed.push(cursor);
    cursor = nextAfter(job.schedule, cursor);
  }
  if (cursor && cursor < cutoff) cursor = firstAtOrAfter(job.schedule, cursor, cutoff);
  // An occurrence inside an exclusion window is recorded SKIPPED naming it, missed or not.
  const windows = exclusionWindowsOf(job);
  const excluded = (nominal: Date): PlannedOccurrence | null => {
    const hit = windows.length === 0 ? null : exclusionAt(windows, nominal);
    return hit && { nominal, trigger: 'SCHEDULE', dueAt: nominal, skippedReason: excludedReason(hit.name), excludedBy: hit.name };
  };
  const missedExcluded = missed.map(excluded);
  const lastRunnable = missedExcluded.lastIndexOf(null);
  missed.forEach((nominal, i) => {
    const skipped = missedExcluded[i];
    if (skipped) {
      occurrences.push(skipped);
      return;
    }
    const runIt = job.misfirePolicy === 'RUN_ALL' || (job.misfirePolicy === 'RUN_ONCE' && i === lastRunnable);
    occurrences.push({
      nominal,
      trigger: runIt ? 'CATCH_UP' : 'SCHEDULE',
      dueAt: runIt ? now : nominal,
      skippedReason: runIt
        ? null
        : job.misfirePolicy === 'SKIP'
          ? `${MISSED} (misfire policy SKIP)`
          : `${MISSED}; one catch-up execution ran for the missed occurrences (misfire policy RUN_ONCE)`,
    });
  });
  const limit = occurrences.length + MAX_OCCURRENCES_PER_JOB;
  while (cursor && cursor.getTime() <= horizon.getTime() && occurrences.length < limit) {
    occurrences.push(excluded(cursor) ?? { nominal: cursor, trigger: 'SCHEDULE', dueAt: null, skippedReason: null });
    cursor = nextAfter(job.schedule, cursor);
  }
  return { occurrences, scheduleCursor: cursor, status: cursor ? job.status : 'COMPLETED' };
}

export function occurrenceKey(jobId: ObjectId, nominal: Date): string {
  return `${jobId.toHexString()}@${nominal.toISOString()}`;
}
