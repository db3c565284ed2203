/**
 * Whether an instant lies in an exclusion window, and the first occurrence of a schedule outside
 * every window. Windows are local time in their zone: a DATES window runs from the first instant the
 * local clock reads `from` 00:00 to the first instant it reads the day after `to` 00:00; a CRON window
 * opens at each occurrence of its cron (the DST rules of cronOccurrences.ts: a start skipped by a
 * spring-forward opens at the first instant after the gap, a repeated one opens once) and closes at
 * the first instant the local clock reads the opening reading plus `durationSeconds`. So "every
 * Saturday 00:00 for 48 hours" covers Saturday and Sunday whole on a 23- or 25-hour weekend.
 */
import type { ExclusionWindow } from '../exclusion.js';
import type { Schedule } from '../job.js';
import { cronOccurrenceAfter } from './cronOccurrences.js';
import { firstAtOrAfter } from './nextOccurrences.js';
import { DAY, firstChangeBetween, offsetAt } from './zoneOffsets.js';

/** An excluded instant: the window's name and where the window ends (the first instant after it). */
export interface ExclusionHit {
  name: string;
  end: number;
}

/** At most this many window starts are looked at for one instant (a cron window opening every minute, say); past it the instant counts as not excluded. */
const MAX_STARTS_CHECKED = 1000;

/**
 * How many windows the search for an occurrence outside them may jump over (nextRunAt,
 * previewSchedule, the check of a job's exclusions when it is written) before it gives up, so that
 * exclusions covering all time cannot make a search loop forever.
 */
export const MAX_EXCLUDED_JUMPS = 400;

/** The search for an occurrence outside the exclusions gave up after MAX_EXCLUDED_JUMPS windows. */
export const SEARCH_GAVE_UP = 'gave up';

/**
 * The first instant at or after `from` whose local reading in `timezone` (as naive UTC
 * milliseconds) is at least `wall`; the reading at `from` is below it. Walks forward through
 * stretches of constant offset, like cronOccurrenceAfter.
 */
export function firstInstantReading(timezone: string, from: number, wall: number): number {
  let segmentStart = from;
  let offset = offsetAt(timezone, from);
  for (;;) {
    const reached = wall - offset;
    const change = firstChangeBetween(timezone, segmentStart, reached);
    if (change === null) return Math.max(reached, from);
    // Clocks jump forward past the reading: the window edge is the jump itself.
    if (change.at + change.after >= wall) return change.at;
    segmentStart = change.at;
    offset = change.after;
  }
}

/** The local midnight starting `date` (YYYY-MM-DD), as naive UTC milliseconds. */
function wallMidnight(date: string): number {
  const [year, month, day] = date.split('-').map(Number);
  return Date.UTC(year, month - 1, day);
}

/** Long enough before a wall reading that no zone's clock reads it yet (offsets are under 16 hours). */
const BEFORE_ANY_ZONE = 2 * DAY;

/** The end of the window containing `instant`, or null when it is outside `window`. */
function windowEndAround(window: ExclusionWindow, instant: number): number | null {
  const zone = window.timezone;
  if (window.kind === 'DATES') {
    const wallStart = wallMidnight(window.from);
    const wallEnd = wallMidnight(window.to) + DAY;
    // Cheap bounds first: most instants are far from a date range.
    if (instant < wallStart - BEFORE_ANY_ZONE || instant > wallEnd + BEFORE_ANY_ZONE) return null;
    const start = firstInstantReading(zone, wallStart - BEFORE_ANY_ZONE, wallStart);
    const end = firstInstantReading(zone, wallEnd - BEFORE_ANY_ZONE, wallEnd);
    return start <= instant && instant < end ? end : null;
  }
  const duration = window.durationSeconds * 1000;
  // A window lasts its duration plus however much the offset fell while it was open: starts before
  // `instant - duration - drop` have closed.
  let start = cronOccurrenceAfter(window.cron, zone, instant - duration - offsetDrop(zone, instant - duration - DAY, instant) - 1);
  for (let checked = 0; start !== null && start <= instant && checked < MAX_STARTS_CHECKED; checked++) {
    const end = firstInstantReading(zone, start, start + offsetAt(zone, start) + duration);
    if (instant < end) return end;
    start = cronOccurrenceAfter(window.cron, zone, start);
  }
  return null;
}

/** The largest offset in `timezone` between `from` and `to` minus the smallest (0 when it does not change). */
function offsetDrop(timezone: string, from: number, to: number): number {
  let highest = offsetAt(timezone, from);
  let lowest = highest;
  for (let change = firstChangeBetween(timezone, from, to); change !== null; change = firstChangeBetween(timezone, change.at, to)) {
    highest = Math.max(highest, change.after);
    lowest = Math.min(lowest, change.after);
  }
  return highest - lowest;
}

/** The first window (in the order given) that `instant` lies in, or null. */
export function exclusionAt(windows: readonly ExclusionWindow[], instant: Date): ExclusionHit | null {
  const at = instant.getTime();
  for (const window of windows) {
    const end = windowEndAround(window, at);
    if (end !== null) return { name: window.name, end };
  }
  return null;
}

/**
 * `candidate` when it is outside every window, else the first occurrence of `schedule` after it
 * that is (a window is jumped over whole, to its end, not walked occurrence by occurrence): null when
 * the schedule ends first, SEARCH_GAVE_UP after MAX_EXCLUDED_JUMPS windows.
 */
export function firstIncluded(
  schedule: Schedule,
  windows: readonly ExclusionWindow[],
  candidate: Date | null,
): Date | null | typeof SEARCH_GAVE_UP {
  let next = candidate;
  for (let jumps = 0; next !== null; jumps++) {
    const hit = exclusionAt(windows, next);
    if (hit === null) return next;
    if (jumps >= MAX_EXCLUDED_JUMPS) return SEARCH_GAVE_UP;
    next = firstAtOrAfter(schedule, next, new Date(hit.end));
  }
  return null;
}
