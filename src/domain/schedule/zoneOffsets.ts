/**
 * A zone's UTC-offset changes, tabulated per block of days from Intl (formatLocal.ts), so that the
 * cron search maps wall-clock times to instants with plain arithmetic between changes.
 */
import { zoneOffsetMs } from './formatLocal.js';
import { LruCache } from './lruCache.js';

/** The zone's UTC offset (local minus UTC, ms) is `before` until `at` and `after` from `at` on. */
export interface OffsetChange {
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

export const SECOND = 1000;
export const DAY = 86_400_000;
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

/** The zone's UTC offset (local minus UTC, ms) at `instant`. */
export function offsetAt(timezone: string, instant: number): number {
  const table = zoneBlock(timezone, blockOf(instant));
  let offset = table.startOffset;
  for (const change of table.changes) {
    if (change.at > instant) break;
    offset = change.after;
  }
  return offset;
}

/** The most recent change with `from < at <= to`. */
export function lastChangeBetween(timezone: string, from: number, to: number): OffsetChange | null {
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
export function firstChangeBetween(timezone: string, from: number, to: number): OffsetChange | null {
  if (timezone === 'UTC') return null;
  for (let block = blockOf(from), lastBlock = blockOf(to); block <= lastBlock; block++) {
    for (const change of zoneBlock(timezone, block).changes) {
      if (change.at > to) return null;
      if (change.at > from) return change;
    }
  }
  return null;
}
