import type { JobDoc, Schedule } from '../job.js';
import { nextAfter, nextOccurrences } from './nextOccurrences.js';

/**
 * The nominal (un-jittered) occurrences of `schedule` in [from, to), in order, at most `max` (ask for
 * one more than allowed to tell a range that has too many). The same engine as previewSchedule and
 * the scheduler (nextOccurrences.ts), so an instant found here is the one the scheduler would have
 * materialised, with the same occurrence key: CRON in its zone under the DST rules of
 * cronOccurrences.ts, within startAt and endAt; ONCE its runAt when inside the range.
 *
 * An INTERVAL schedule has no instants of its own, only a grid anchored on one of its occurrences:
 * the job's scheduleCursor (the grid it runs on now), else its startAt, else its creation plus one
 * interval (a paused job's first grid; a resume starts a new grid from its own instant, so instants
 * backfilled across a pause of an INTERVAL job may lie off the grid the scheduler ran before it). The
 * instants are that grid's, before or after the anchor, none before startAt nor after endAt.
 */
export function occurrencesBetween(
  job: Pick<JobDoc, 'schedule' | 'scheduleCursor' | 'createdAt'>,
  from: Date,
  to: Date,
  max: number,
): Date[] {
  const { schedule } = job;
  const anchor =
    job.scheduleCursor ??
    (schedule.kind === 'INTERVAL' ? (schedule.startAt ?? new Date(job.createdAt.getTime() + schedule.intervalSeconds * 1000)) : from);
  const instants: Date[] = [];
  let next: Date | null = first(schedule, anchor, from);
  while (next && next.getTime() < to.getTime() && instants.length < max) {
    instants.push(next);
    next = nextAfter(schedule, next);
  }
  return instants;
}

function first(schedule: Schedule, anchor: Date, from: Date): Date | null {
  if (schedule.kind !== 'INTERVAL') return nextOccurrences(schedule, new Date(from.getTime() - 1), 1)[0] ?? null;
  const step = schedule.intervalSeconds * 1000;
  const lowest = Math.max(from.getTime(), schedule.startAt?.getTime() ?? -Infinity);
  const at = anchor.getTime() + Math.ceil((lowest - anchor.getTime()) / step) * step;
  return schedule.endAt !== undefined && at > schedule.endAt.getTime() ? null : new Date(at);
}
