import { BadUserInputError } from '../../errors/index.js';
import { formatLocal } from './formatLocal.js';
import { firstOccurrence, nextAfter } from './nextOccurrences.js';
import { parseSchedule, type ScheduleInputFields } from './parseSchedule.js';

export const MAX_PREVIEW = 100;

/** The next `count` occurrences of a schedule input from `now` (or its startAt), as UTC and local time. Creates nothing. */
export function previewSchedule(input: ScheduleInputFields, count: number, now: Date): { at: Date; local: string }[] {
  if (!Number.isInteger(count) || count < 1 || count > MAX_PREVIEW) {
    throw new BadUserInputError(`count must be an integer between 1 and ${MAX_PREVIEW}`, 'count');
  }
  const schedule = parseSchedule(input, now);
  const occurrences: Date[] = [];
  let next = firstOccurrence(schedule, now);
  while (next && occurrences.length < count) {
    occurrences.push(next);
    next = nextAfter(schedule, next);
  }
  return occurrences.map((at) => ({ at, local: formatLocal(at, schedule.timezone) }));
}
