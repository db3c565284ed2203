/**
 * When a schedule fires: nominal (un-jittered) occurrences of CRON, INTERVAL and ONCE schedules,
 * within their startAt and endAt. Cron expressions are evaluated in the schedule's IANA zone under
 * the daylight saving rules of cronOccurrences.ts. Intervals are fixed real-time durations,
 * unaffected by time zones.
 */
import type { Schedule } from '../job.js';
import { cronOccurrenceAfter } from './cronOccurrences.js';

const SECOND = 1000;

function withinBounds(schedule: Schedule, instant: number): boolean {
  return (
    (schedule.startAt === undefined || instant >= schedule.startAt.getTime()) &&
    (schedule.endAt === undefined || instant <= schedule.endAt.getTime())
  );
}

function notAfterEnd(schedule: Schedule, instant: number | null): number | null {
  return instant !== null && (schedule.endAt === undefined || instant <= schedule.endAt.getTime()) ? instant : null;
}

function cronAfter(schedule: Extract<Schedule, { kind: 'CRON' }>, afterMs: number): number | null {
  const lowerBound = schedule.startAt === undefined ? afterMs : Math.max(afterMs, schedule.startAt.getTime() - 1);
  return notAfterEnd(schedule, cronOccurrenceAfter(schedule.cron, schedule.timezone, lowerBound));
}

/** The first occurrence strictly after `afterMs` for a schedule seen fresh at that instant. */
function firstAfterMs(schedule: Schedule, afterMs: number): number | null {
  switch (schedule.kind) {
    case 'ONCE': {
      const runAt = schedule.runAt.getTime();
      return runAt > afterMs && withinBounds(schedule, runAt) ? runAt : null;
    }
    case 'INTERVAL': {
      const startAt = schedule.startAt?.getTime();
      const first = startAt !== undefined && startAt > afterMs ? startAt : afterMs + schedule.intervalSeconds * SECOND;
      return notAfterEnd(schedule, first);
    }
    case 'CRON':
      return cronAfter(schedule, afterMs);
  }
}

function nextAfterMs(schedule: Schedule, previousMs: number): number | null {
  switch (schedule.kind) {
    case 'ONCE':
      return null;
    case 'INTERVAL':
      return notAfterEnd(schedule, previousMs + schedule.intervalSeconds * SECOND);
    case 'CRON':
      return cronAfter(schedule, previousMs);
  }
}

/**
 * Up to `count` nominal (un-jittered) occurrences strictly after `after`, none before `startAt` nor after
 * `endAt`, in order. An INTERVAL schedule is taken as if created at `after`: it starts at `startAt` when
 * that is later, else one interval after `after`. A ONCE schedule yields `runAt` only when it is later
 * than `after` (see firstOccurrence for a newly created job).
 */
export function nextOccurrences(schedule: Schedule, after: Date, count: number): Date[] {
  const occurrences: Date[] = [];
  let next = count > 0 ? firstAfterMs(schedule, after.getTime()) : null;
  while (next !== null) {
    occurrences.push(new Date(next));
    if (occurrences.length >= count) break;
    next = nextAfterMs(schedule, next);
  }
  return occurrences;
}

/**
 * The first nominal occurrence of a job created (or rescheduled) at `now`, or null when it has none.
 * ONCE: `runAt`, even slightly in the past (parseSchedule allows a short grace), if within startAt/endAt.
 * INTERVAL: `startAt` if it is later than `now`, else `now` plus one interval.
 * CRON: the first matching instant strictly after `now` and not before `startAt`.
 * Never after `endAt`.
 */
export function firstOccurrence(schedule: Schedule, now: Date): Date | null {
  if (schedule.kind === 'ONCE') {
    const runAt = schedule.runAt.getTime();
    return withinBounds(schedule, runAt) ? new Date(runAt) : null;
  }
  const first = firstAfterMs(schedule, now.getTime());
  return first === null ? null : new Date(first);
}

/**
 * The nominal occurrence that follows `previousNominal`, or null when there is none (ONCE, or past
 * `endAt`). INTERVAL: exactly one interval of real time later. CRON: the next matching instant.
 */
export function nextAfter(schedule: Schedule, previousNominal: Date): Date | null {
  const next = nextAfterMs(schedule, previousNominal.getTime());
  return next === null ? null : new Date(next);
}

/**
 * The first occurrence at or after `instant`, continuing the series that has an occurrence at
 * `previousNominal` (intervals keep their grid). Used to jump over a long gap without walking it.
 */
export function firstAtOrAfter(schedule: Schedule, previousNominal: Date, instant: Date): Date | null {
  const from = previousNominal.getTime();
  const target = instant.getTime();
  if (from >= target) return previousNominal;
  switch (schedule.kind) {
    case 'ONCE':
      return null;
    case 'INTERVAL': {
      const step = schedule.intervalSeconds * SECOND;
      const next = notAfterEnd(schedule, from + Math.ceil((target - from) / step) * step);
      return next === null ? null : new Date(next);
    }
    case 'CRON': {
      const next = cronAfter(schedule, target - 1);
      return next === null ? null : new Date(next);
    }
  }
}
