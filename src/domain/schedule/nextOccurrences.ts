/**
 * When a schedule fires: nominal (un-jittered) occurrences of CRON, INTERVAL and ONCE schedules.
 *
 * Cron expressions are evaluated in the schedule's IANA zone. croner is used only as a calendar
 * matcher on naive wall-clock time (it runs at UTC offset 0, where no clock ever jumps); mapping wall
 * times to real instants is done here, from a per-zone table of UTC-offset changes, so that daylight
 * saving time follows explicit rules (croner's own `timezone` option fires a skipped 02:30 at 03:30,
 * drops the repeated hour of hourly jobs, can answer an instant earlier than the one asked about, and
 * costs a few hundred microseconds a call). The rules, in the spirit of Vixie cron:
 *
 * - An expression whose second, minute and hour fields all name specific values (`30 2 * * *`,
 *   `0 9-17 * * 1-5`) is about wall-clock times, and each matching wall-clock time fires once:
 *   a time skipped when clocks go forward fires at the first instant after the gap (New York,
 *   2027-03-14, `30 2 * * *` fires at 03:00 EDT = 07:00Z); a time that occurs twice when clocks go
 *   back fires at its first occurrence only (2027-11-07, `30 1 * * *` fires at 05:30Z, not at 06:30Z).
 *   Lists and ranges count as specific (`0 0-23 * * *` is 24 wall-clock times), as in Vixie cron.
 * - An expression with a wildcard (`*` or `*` with a step) in the second, minute or hour field is about
 *   the passing of real time: it fires at every real instant whose local reading matches. So `0 * * * *`
 *   fires every real hour through both transitions (the repeated 01:00 fires twice, as 05:00Z and
 *   06:00Z; the non-existent 02:00 does not fire), and every-15-minutes keeps a real 15-minute rhythm.
 *
 * Intervals are fixed real-time durations, unaffected by time zones.
 */
import { Cron } from 'croner';
import type { Schedule } from '../job.js';
import { zoneOffsetMs } from './formatLocal.js';

/** A small bounded map that forgets the least recently used entry first. */
class LruCache<K, V> {
  private readonly entries = new Map<K, V>();
  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, value);
  }
}

// ---------------------------------------------------------------------------------------------------
// Cron expressions

const NICKNAMES = new Map([
  ['@yearly', '0 0 1 1 *'],
  ['@annually', '0 0 1 1 *'],
  ['@monthly', '0 0 1 * *'],
  ['@weekly', '0 0 * * 0'],
  ['@daily', '0 0 * * *'],
  ['@hourly', '0 * * * *'],
]);

/** The expression with a nickname croner knows (`@daily`, ...) replaced by its five fields. */
export function expandCronNickname(cron: string): string {
  const trimmed = cron.trim();
  return NICKNAMES.get(trimmed.toLowerCase()) ?? trimmed;
}

interface CompiledCron {
  /** The pattern evaluated on naive wall-clock time (UTC offset 0); walls are mapped to instants here. */
  wallClock: Cron;
  /** Second, minute and hour fields all name specific values: the DST rules for wall-clock times apply. */
  specificTime: boolean;
}

/**
 * Parsed patterns are shared by every job and zone using them: croner runs on wall-clock time only.
 * Bounded; a request that evicts another's pattern only costs it a parse (tens of microseconds).
 */
const compiledCrons = new LruCache<string, CompiledCron>(1000);

function compileCron(cron: string): CompiledCron {
  let compiled = compiledCrons.get(cron);
  if (compiled === undefined) {
    const fields = expandCronNickname(cron).split(/\s+/);
    const timeFields = fields.length === 6 ? fields.slice(0, 3) : fields.slice(0, 2);
    compiled = {
      wallClock: new Cron(fields.join(' '), { utcOffset: 0, legacyMode: true }),
      specificTime: !timeFields.some((field) => field.startsWith('*')),
    };
    compiledCrons.set(cron, compiled);
  }
  return compiled;
}

/** The first wall-clock time (naive, as UTC milliseconds) matching the pattern at or after `floor`. */
function nextWall(wallClock: Cron, floor: number): number | null {
  // croner answers strictly after its argument, on whole seconds.
  return wallClock.nextRun(new Date(floor - 1))?.getTime() ?? null;
}

// ---------------------------------------------------------------------------------------------------
// UTC-offset changes of a zone, per block of days

/** The zone's UTC offset (local minus UTC, ms) is `before` until `at` and `after` from `at` on. */
interface OffsetChange {
  at: number;
  before: number;
  after: number;
}

interface ZoneBlock {
  /** Offset in force when the block starts (a change at its very first second is in `changes`). */
  startOffset: number;
  /** Changes during the block, in order. */
  changes: OffsetChange[];
}

const SECOND = 1000;
const DAY = 86_400_000;
/**
 * Offsets are tabulated in blocks of this many days (counted from 1970-01-01), each built from 9 Intl
 * calls plus about 18 per change. Small blocks keep the cost of a search proportional to the
 * occurrences it finds, not to the years between them: a leap-day schedule needs two blocks around
 * each 29 February, never the four years in between.
 */
const BLOCK = 8 * DAY;
/**
 * Blocks kept. A request that fills the cache with blocks of its own only costs the next user of an
 * evicted block its rebuild (tens of microseconds), so no tenant can make another's searches slow.
 */
const zoneBlocks = new LruCache<string, ZoneBlock>(8192);
const NO_CHANGES: ZoneBlock = { startOffset: 0, changes: [] };

function blockOf(instant: number): number {
  return Math.floor(instant / BLOCK);
}

function zoneBlock(timezone: string, block: number): ZoneBlock {
  if (timezone === 'UTC') return NO_CHANGES;
  const key = `${timezone.toLowerCase()}\n${block}`;
  let table = zoneBlocks.get(key);
  if (table === undefined) {
    table = buildZoneBlock(timezone, block);
    zoneBlocks.set(key, table);
  }
  return table;
}

/**
 * Samples the offset once a day and bisects each change to the second, after which offsets in the
 * block are plain arithmetic. Two changes within one day that cancel out would go unseen; no zone has
 * had such a pair in the period schedules care about.
 */
function buildZoneBlock(timezone: string, block: number): ZoneBlock {
  const start = block * BLOCK;
  const last = start + BLOCK - SECOND;
  const changes: OffsetChange[] = [];
  let previous = start - SECOND;
  let previousOffset = zoneOffsetMs(previous, timezone);
  const startOffset = previousOffset;
  while (previous < last) {
    const sample = Math.min(previous + DAY, last);
    const sampleOffset = zoneOffsetMs(sample, timezone);
    while (sampleOffset !== previousOffset) {
      const at = firstSecondWithOtherOffset(timezone, previous, sample, previousOffset);
      const after = zoneOffsetMs(at, timezone);
      changes.push({ at, before: previousOffset, after });
      previous = at;
      previousOffset = after;
    }
    previous = sample;
  }
  return { startOffset, changes };
}

/** Bisects (low, high], whole seconds, where `low` has `lowOffset` and `high` does not. */
function firstSecondWithOtherOffset(timezone: string, low: number, high: number, lowOffset: number): number {
  while (high - low > SECOND) {
    const middle = low + Math.floor((high - low) / (2 * SECOND)) * SECOND;
    if (zoneOffsetMs(middle, timezone) === lowOffset) low = middle;
    else high = middle;
  }
  return high;
}

function offsetAt(timezone: string, instant: number): number {
  const table = zoneBlock(timezone, blockOf(instant));
  let offset = table.startOffset;
  for (const change of table.changes) {
    if (change.at > instant) break;
    offset = change.after;
  }
  return offset;
}

/** The most recent change with `from < at <= to`. */
function lastChangeBetween(timezone: string, from: number, to: number): OffsetChange | null {
  if (timezone === 'UTC') return null;
  for (let block = blockOf(to), firstBlock = blockOf(from); block >= firstBlock; block--) {
    const { changes } = zoneBlock(timezone, block);
    for (let i = changes.length - 1; i >= 0; i--) {
      const change = changes[i];
      if (change.at <= from) return null;
      if (change.at <= to) return change;
    }
  }
  return null;
}

/** The first change with `from < at <= to`. */
function firstChangeBetween(timezone: string, from: number, to: number): OffsetChange | null {
  if (timezone === 'UTC') return null;
  for (let block = blockOf(from), lastBlock = blockOf(to); block <= lastBlock; block++) {
    for (const change of zoneBlock(timezone, block).changes) {
      if (change.at > to) return null;
      if (change.at > from) return change;
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------
// Cron occurrences

/**
 * More than any UTC offset a zone has had (the largest, local mean times of the 19th century, are
 * under 16 hours), so an occurrence is always within this of the wall-clock time it is for.
 */
const OFFSET_BOUND = DAY;
/** A candidate further than this from where the walk stands is reached by a jump (see below). */
const JUMP_DISTANCE = 4 * OFFSET_BOUND;

/**
 * The first occurrence of `cron` in `timezone` strictly after `afterMs`, under the DST rules above.
 *
 * Walks forward through stretches of constant UTC offset, where wall time = instant + offset. When the
 * next matching wall-clock time `wall` is far ahead and the offset does not change in the next
 * 2·OFFSET_BOUND, nothing can fire before `wall - OFFSET_BOUND` (any later occurrence is within
 * OFFSET_BOUND of a matching wall-clock time not before `wall`), so the search starts afresh there:
 * a rare cron costs a few croner calls and zone blocks per occurrence, however many years apart.
 */
function cronOccurrenceAfter(cron: string, timezone: string, afterMs: number): number | null {
  const { wallClock, specificTime } = compileCron(cron);
  let after = afterMs;
  jumps: for (;;) {
    let segmentStart = after + 1;
    let offset = offsetAt(timezone, segmentStart);
    let floor = segmentStart + offset;
    if (specificTime) {
      // Inside the second pass of a repeated hour: its wall-clock times already fired in the first pass.
      // Only a change less than OFFSET_BOUND ago can have a repeated hour still running.
      const change = lastChangeBetween(timezone, segmentStart - OFFSET_BOUND, segmentStart);
      if (change !== null && change.after < change.before) floor = Math.max(floor, change.at + change.before);
    }
    let wall = nextWall(wallClock, floor);
    while (wall !== null) {
      const candidate = wall - offset;
      if (
        candidate - segmentStart > JUMP_DISTANCE &&
        firstChangeBetween(timezone, segmentStart, segmentStart + 2 * OFFSET_BOUND) === null
      ) {
        after = wall - OFFSET_BOUND - 1;
        continue jumps;
      }
      const change = firstChangeBetween(timezone, segmentStart, candidate);
      if (change === null) return candidate;
      // The offset changes before the candidate: resume at the change with the new offset. Wall-clock
      // patterns resume where the old clock stopped (`at + before`): a repeated hour is not matched again,
      // and a skipped hour is still matched (below). Real-time patterns resume at what the clock now shows.
      segmentStart = change.at;
      offset = change.after;
      wall = nextWall(wallClock, change.at + (specificTime ? change.before : change.after));
      // A wall-clock time inside a skipped stretch fires at the first instant after it.
      if (wall !== null && wall < change.at + change.after) return change.at;
    }
    return null;
  }
}

// ---------------------------------------------------------------------------------------------------
// Schedules

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
