import { exclusionWindowsOf } from '../exclusion.js';
import type { JobDoc } from '../job.js';
import { firstIncluded, SEARCH_GAVE_UP } from './exclusionWindows.js';
import { nextOccurrences } from './nextOccurrences.js';

/**
 * A job's next run as the API shows it: the nominal time of its first occurrence that has not
 * started yet, materialised or not, or null when it has none (paused, or its schedule is over).
 *
 * The stored `scheduleCursor` is the first occurrence not yet materialised, up to the look-ahead
 * later: the occurrences before it are executions already, and the ones after `now` among them have
 * not started (jitter only delays, never advances, a start). So the next run is the first
 * occurrence after `now` in the cursor's own sequence, and the cursor itself when it is already due
 * (an overdue occurrence not yet materialised has not started either). Computed, not stored, so it
 * needs no write when an occurrence starts; the scheduler's due query runs on the cursor.
 *
 * An INTERVAL sequence is anchored on its cursor, so once the cursor is null (the last occurrences
 * before `endAt` are materialised) those last few occurrences are not shown; CRON and ONCE
 * occurrences do not depend on an anchor and are.
 *
 * An occurrence inside one of the job's exclusion windows is not a run (it will be recorded
 * SKIPPED): the next run is the first one after it outside them, or null when the search for one
 * gives up (exclusions covering all time; exclusionWindows.ts MAX_EXCLUDED_JUMPS).
 */
export function nextRunAt(
  job: Pick<JobDoc, 'status' | 'schedule' | 'scheduleCursor' | 'exclusions' | 'calendarWindows'>,
  now: Date,
): Date | null {
  const next = nextNominalRun(job, now);
  const windows = exclusionWindowsOf(job);
  if (next === null || windows.length === 0) return next;
  const included = firstIncluded(job.schedule, windows, next);
  return included === SEARCH_GAVE_UP ? null : included;
}

function nextNominalRun(job: Pick<JobDoc, 'status' | 'schedule' | 'scheduleCursor'>, now: Date): Date | null {
  if (job.status === 'PAUSED') return null;
  const cursor = job.scheduleCursor;
  if (cursor && cursor.getTime() <= now.getTime()) return cursor;
  const { schedule } = job;
  switch (schedule.kind) {
    case 'ONCE':
    case 'CRON': {
      const [next] = nextOccurrences(schedule, now, 1);
      if (!next) return null;
      return cursor && cursor < next ? cursor : next;
    }
    case 'INTERVAL': {
      if (!cursor) return null;
      const step = schedule.intervalSeconds * 1000;
      // The earliest cursor - k·step still after `now`, but not before the sequence's start.
      const behind = Math.floor((cursor.getTime() - now.getTime() - 1) / step);
      const first = cursor.getTime() - behind * step;
      const startAt = schedule.startAt?.getTime();
      return new Date(startAt !== undefined && first < startAt ? Math.min(startAt, cursor.getTime()) : first);
    }
  }
}
