/**
 * When a cron expression fires, in its schedule's IANA zone. croner is used only as a calendar
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
 */
import { Cron } from 'croner';
import { LruCache } from './lruCache.js';
import { DAY, firstChangeBetween, lastChangeBetween, offsetAt } from './zoneOffsets.js';

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
export function cronOccurrenceAfter(cron: string, timezone: string, afterMs: number): number | null {
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
