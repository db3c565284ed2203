import type { CronPattern } from 'croner';

/** Months in one cycle of the Gregorian calendar, which repeats every 400 years, weekdays included. */
const CYCLE_MONTHS = 400 * 12;
/** croner's day-of-week bits: #1 to #5 (a plain weekday has all of them) and #L. */
const FIRST_FOUR = 0b1111;
const FIFTH = 0b10000;
const LAST = 0b100000;

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  if (month === 1) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return MONTH_DAYS[month];
}

/** Whether a month of `days` days starting on weekday `first` (0 = Sunday) has a day the pattern allows. */
function monthMatches(pattern: CronPattern, days: number, first: number): boolean {
  const byDay = pattern.lastDayOfMonth || pattern.day.slice(0, days).some((allowed) => allowed !== 0);
  if (pattern.starDOW) return byDay;
  // Every weekday occurs 4 times in every month, and a 5th time on the first `days - 28` weekdays.
  const byWeekday = pattern.dayOfWeek.some((bits, weekday) => {
    if ((bits & (FIRST_FOUR | LAST)) !== 0) return true;
    return (bits & FIFTH) !== 0 && (weekday - first + 7) % 7 < days - 28;
  });
  // As croner with legacyMode (and cron): a restricted day of month and day of week match either.
  return pattern.starDOM ? byWeekday : byDay || byWeekday;
}

/**
 * The longest run of consecutive calendar months in which the pattern has no matching day, over the
 * whole 400-year Gregorian cycle (so over all time); null when it never matches. Only the date fields
 * count: every matching day has matching times. `0 0 29 2 *` gives 95 (from March 2096 to January
 * 2104, 2100 not being a leap year), `0 0 * 2 1#5` (a fifth Monday in February) 479, from 2072 to 2112. Mirrors croner's
 * matching of days (`L`, `#n`, `#L`, either of day of month and day of week), which
 * tests/unit/cronGap.test.ts checks against croner itself.
 */
export function longestCronGapMonths(pattern: CronPattern): number | null {
  // Whether a month matches depends only on which month it is, its length and its first weekday.
  const table = new Map<number, boolean>();
  const matchesMonth = (month: number, days: number, first: number): boolean => {
    const key = (month * 32 + days) * 7 + first;
    let matches = table.get(key);
    if (matches === undefined) {
      matches = pattern.month[month] !== 0 && monthMatches(pattern, days, first);
      table.set(key, matches);
    }
    return matches;
  };
  const matches: boolean[] = [];
  let first = 6; // 1 January 2000 was a Saturday
  for (let index = 0; index < CYCLE_MONTHS; index++) {
    const year = 2000 + Math.floor(index / 12);
    const month = index % 12;
    const days = daysIn(year, month);
    matches.push(matchesMonth(month, days, first));
    first = (first + days) % 7;
  }
  const firstMatch = matches.indexOf(true);
  if (firstMatch === -1) return null;
  // Runs wrap around the end of the cycle: start counting just after a matching month.
  let longest = 0;
  let run = 0;
  for (let step = 1; step <= CYCLE_MONTHS; step++) {
    if (matches[(firstMatch + step) % CYCLE_MONTHS]) {
      longest = Math.max(longest, run);
      run = 0;
    } else {
      run += 1;
    }
  }
  return longest;
}
