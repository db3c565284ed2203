import { describe, expect, it } from '@jest/globals';
import { Cron, CronPattern } from 'croner';
import { longestCronGapMonths } from '../../src/domain/schedule/cronGap.js';

/**
 * The longest run of months without an occurrence as croner itself finds it: every occurrence from
 * 2000 to 2799 (two Gregorian cycles, so a run across the end of one is seen whole), one croner call
 * per month that has one.
 */
function gapFromCroner(cron: string): number | null {
  const matcher = new Cron(cron, { utcOffset: 0, legacyMode: true });
  const end = Date.UTC(2800, 0, 1);
  let longest: number | null = null;
  let previous: number | null = null;
  let from = Date.UTC(2000, 0, 1) - 1;
  for (;;) {
    const next = matcher.nextRun(new Date(from));
    if (next === null || next.getTime() >= end) break;
    const month = next.getUTCFullYear() * 12 + next.getUTCMonth();
    if (previous !== null) longest = Math.max(longest ?? 0, month - previous - 1);
    previous = month;
    from = Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 1) - 1;
  }
  return longest;
}

describe('longestCronGapMonths', () => {
  it.each([
    ['every day', '0 0 * * *'],
    ['a yearly date', '0 0 1 1 *'],
    ['the leap day', '0 0 29 2 *'],
    ['a fifth Monday in February', '0 0 * 2 1#5'],
    ['a fifth Monday in March', '0 0 * 3 1#5'],
    ['a fifth Sunday in April', '0 0 * 4 0#5'],
    ['a fifth Friday in any month', '0 0 * * 5#5'],
    ['the last Friday of February', '0 0 * 2 5#L'],
    ['the 31st or a fifth Monday in June', '0 0 31 6 1#5'],
    ['the leap day or any Monday in February', '0 0 29 2 1'],
    ['the last day of February', '0 0 L 2 *'],
    ['the 30th of February or a fifth Tuesday', '0 0 30 2 2#5'],
    ['a fifth Monday or a second Tuesday in February', '0 0 * 2 1#5,2#2'],
  ])('agrees with croner for %s (%s)', (_, cron) => {
    expect(longestCronGapMonths(new CronPattern(cron))).toBe(gapFromCroner(cron));
  });

  it('knows the leap day waits 8 years across 2100, and a fifth Monday in February 40 years across it', () => {
    // March 2096 to January 2104.
    expect(longestCronGapMonths(new CronPattern('0 0 29 2 *'))).toBe(95);
    // 29 February is a Monday in 2072 and next in 2112 (2100 is not a leap year).
    expect(longestCronGapMonths(new CronPattern('0 0 * 2 1#5'))).toBe(40 * 12 - 1);
  });

  it('answers null for a date that never exists', () => {
    expect(longestCronGapMonths(new CronPattern('0 0 30 2 *'))).toBeNull();
    expect(longestCronGapMonths(new CronPattern('0 0 31 4,6,9,11 *'))).toBeNull();
  });
});
