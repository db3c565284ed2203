import { BadUserInputError, ExclusionSearchLimitError } from '../../errors/index.js';
import type { ExclusionWindow } from '../exclusion.js';
import { firstIncluded, MAX_EXCLUDED_JUMPS, SEARCH_GAVE_UP } from './exclusionWindows.js';
import { formatLocal } from './formatLocal.js';
import { firstOccurrence, nextAfter } from './nextOccurrences.js';
import { parseSchedule, type ScheduleInputFields } from './parseSchedule.js';

export const MAX_PREVIEW = 100;

/**
 * The next `count` occurrences of a schedule input from `now` (or its startAt), as UTC and local time,
 * leaving out those inside `exclusions` (ExclusionSearchLimitError when they cover all of the schedule's
 * time). Creates nothing.
 */
export function previewSchedule(
  input: ScheduleInputFields,
  count: number,
  now: Date,
  exclusions: readonly ExclusionWindow[] = [],
): { at: Date; local: string }[] {
  if (!Number.isInteger(count) || count < 1 || count > MAX_PREVIEW) {
    throw new BadUserInputError(`count must be an integer between 1 and ${MAX_PREVIEW}`, 'count');
  }
  const schedule = parseSchedule(input, now);
  const occurrences: Date[] = [];
  const included = (candidate: Date | null): Date | null => {
    const found = exclusions.length === 0 ? candidate : firstIncluded(schedule, exclusions, candidate);
    if (found === SEARCH_GAVE_UP) throw new ExclusionSearchLimitError(MAX_EXCLUDED_JUMPS);
    return found;
  };
  let next = included(firstOccurrence(schedule, now));
  while (next && occurrences.length < count) {
    occurrences.push(next);
    next = included(nextAfter(schedule, next));
  }
  return occurrences.map((at) => ({ at, local: formatLocal(at, schedule.timezone) }));
}
