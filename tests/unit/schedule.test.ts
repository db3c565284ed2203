// Covers: src/domain/schedule/cronOccurrences.ts, src/domain/schedule/lruCache.ts, src/domain/schedule/zoneOffsets.ts
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Cron } from 'croner';
import type { Schedule, ScheduleCommon } from '../../src/domain/job.js';
import { BadUserInputError } from '../../src/errors/index.js';
import { parseSchedule, type ScheduleInputFields } from '../../src/domain/schedule/parseSchedule.js';
import { firstOccurrence, nextAfter, nextOccurrences } from '../../src/domain/schedule/nextOccurrences.js';
import { formatLocal } from '../../src/domain/schedule/formatLocal.js';
import { MAX_PREVIEW, previewSchedule } from '../../src/domain/schedule/previewSchedule.js';
import { applyJitter } from '../../src/domain/schedule/jitter.js';

// Every expected instant below was worked out by hand from the zone rules (and cross-checked against
// Intl's own offsets), never copied from the implementation:
// - America/New_York 2027: EST (-05:00) -> EDT (-04:00) on Sun 14 March at 07:00Z (02:00 -> 03:00 local);
//   EDT -> EST on Sun 7 November at 06:00Z (02:00 -> 01:00 local, so 01:00-01:59 happens twice).
// - Europe/London 2027: GMT -> BST (+01:00) on Sun 28 March at 01:00Z (01:00 -> 02:00 local);
//   BST -> GMT on Sun 31 October at 01:00Z (02:00 -> 01:00 local).
// - Australia/Lord_Howe 2027 (a 30-minute shift): +11:00 -> +10:30 on Sun 4 April at 2027-04-03T15:00Z
//   (02:00 -> 01:30 local); +10:30 -> +11:00 on Sun 3 October at 2027-10-02T15:30Z (02:00 -> 02:30 local).

const NOW = new Date('2027-01-01T00:00:00.000Z');
const at = (iso: string): Date => new Date(iso);
const isos = (dates: Date[]): string[] => dates.map((d) => d.toISOString());

function cronSchedule(cron: string, timezone = 'UTC', extra: Partial<ScheduleCommon> = {}): Schedule {
  return { kind: 'CRON', cron, timezone, jitterSeconds: 0, ...extra };
}

function intervalSchedule(intervalSeconds: number, extra: Partial<ScheduleCommon> = {}): Schedule {
  return { kind: 'INTERVAL', intervalSeconds, timezone: 'UTC', jitterSeconds: 0, ...extra };
}

function next(schedule: Schedule, afterIso: string, count: number): string[] {
  return isos(nextOccurrences(schedule, at(afterIso), count));
}

function rejection(input: ScheduleInputFields, now: Date = NOW): BadUserInputError {
  try {
    parseSchedule(input, now);
  } catch (error) {
    expect(error).toBeInstanceOf(BadUserInputError);
    return error as BadUserInputError;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be rejected`);
}

describe('parseSchedule', () => {
  it('normalises a cron schedule with defaults', () => {
    expect(parseSchedule({ cron: '  0   9 * *  1-5 ' }, NOW)).toEqual({
      kind: 'CRON',
      cron: '0 9 * * 1-5',
      timezone: 'UTC',
      jitterSeconds: 0,
    });
  });

  it('keeps every given field and no undefined keys', () => {
    const schedule = parseSchedule(
      {
        cron: '*/5 * * * * *',
        timezone: 'Europe/London',
        startAt: at('2027-02-01T00:00:00Z'),
        endAt: at('2027-03-01T00:00:00Z'),
        jitterSeconds: 30,
        intervalSeconds: null,
        runAt: null,
      },
      NOW,
    );
    expect(schedule).toEqual({
      kind: 'CRON',
      cron: '*/5 * * * * *',
      timezone: 'Europe/London',
      startAt: at('2027-02-01T00:00:00Z'),
      endAt: at('2027-03-01T00:00:00Z'),
      jitterSeconds: 30,
    });
    expect(Object.keys(schedule).sort()).toEqual(['cron', 'endAt', 'jitterSeconds', 'kind', 'startAt', 'timezone']);
  });

  it('spells a zone as IANA does when only the case differs', () => {
    expect(parseSchedule({ cron: '0 * * * *', timezone: 'america/new_york' }, NOW).timezone).toBe('America/New_York');
    expect(parseSchedule({ cron: '0 * * * *', timezone: 'utc' }, NOW).timezone).toBe('UTC');
    // A link name is kept as given, not replaced by ICU's canonical name (Asia/Calcutta).
    expect(parseSchedule({ cron: '0 * * * *', timezone: 'Asia/Kolkata' }, NOW).timezone).toBe('Asia/Kolkata');
  });

  it('recognises interval and one-off schedules', () => {
    expect(parseSchedule({ intervalSeconds: 60 }, NOW)).toEqual({
      kind: 'INTERVAL',
      intervalSeconds: 60,
      timezone: 'UTC',
      jitterSeconds: 0,
    });
    expect(parseSchedule({ intervalSeconds: 366 * 86_400 }, NOW)).toMatchObject({ intervalSeconds: 31_622_400 });
    expect(parseSchedule({ runAt: at('2027-01-01T00:05:00Z') }, NOW)).toEqual({
      kind: 'ONCE',
      runAt: at('2027-01-01T00:05:00Z'),
      timezone: 'UTC',
      jitterSeconds: 0,
    });
  });

  it('accepts a one-off up to 60 s in the past, which still fires once', () => {
    const schedule = parseSchedule({ runAt: at('2026-12-31T23:59:00Z') }, NOW);
    expect(firstOccurrence(schedule, NOW)?.toISOString()).toBe('2026-12-31T23:59:00.000Z');
    const error = rejection({ runAt: at('2026-12-31T23:58:59.999Z') });
    expect(error.details).toEqual({ field: 'schedule.runAt' });
    expect(error.message).toMatch(/in the past/);
  });

  it.each([
    ['6 fields, second first', '30 0 12 * * *'],
    ['names', '0 9 * JAN-MAR MON-FRI'],
    ['last day of the month', '0 0 L * *'],
    ['last day in a list', '0 0 1,15,L * *'],
    ['last Friday', '0 0 * * 5#L'],
    ['second Tuesday', '0 0 * * 2#2'],
    ['Sunday as 7', '0 0 * * 7'],
    ['leap day', '0 0 29 2 *'],
    ['fifth Sunday of April (at most 6 years apart)', '0 0 * 4 0#5'],
  ])('accepts cron with %s', (_, cron) => {
    expect(parseSchedule({ cron }, NOW)).toMatchObject({ kind: 'CRON', cron });
  });

  it.each([
    ['@yearly', '0 0 1 1 *'],
    ['@annually', '0 0 1 1 *'],
    ['@monthly', '0 0 1 * *'],
    ['@weekly', '0 0 * * 0'],
    ['@Daily', '0 0 * * *'],
    ['@hourly', '0 * * * *'],
  ])('accepts the nickname %s, stored as its five fields', (cron, expanded) => {
    expect(parseSchedule({ cron }, NOW)).toMatchObject({ kind: 'CRON', cron: expanded });
  });

  it.each<[string, ScheduleInputFields, string, RegExp]>([
    [
      'two kinds',
      { cron: '0 * * * *', intervalSeconds: 60 },
      'schedule',
      /exactly one of cron, intervalSeconds or runAt; cron and intervalSeconds were given/,
    ],
    [
      'three kinds',
      { cron: '0 * * * *', intervalSeconds: 60, runAt: at('2027-02-01T00:00:00Z') },
      'schedule',
      /cron and intervalSeconds and runAt were given/,
    ],
    ['no kind', { timezone: 'UTC' }, 'schedule', /exactly one of cron, intervalSeconds or runAt; none was given/],
    ['interval 0', { intervalSeconds: 0 }, 'schedule.intervalSeconds', /from 1 to 31622400/],
    ['negative interval', { intervalSeconds: -5 }, 'schedule.intervalSeconds', /whole number/],
    ['fractional interval', { intervalSeconds: 1.5 }, 'schedule.intervalSeconds', /whole number/],
    ['interval over 366 days', { intervalSeconds: 366 * 86_400 + 1 }, 'schedule.intervalSeconds', /366 days/],
    ['unknown zone', { cron: '0 * * * *', timezone: 'Mars/Base' }, 'schedule.timezone', /"Mars\/Base" is not a known IANA time zone/],
    ['offset instead of zone', { cron: '0 * * * *', timezone: '+05:00' }, 'schedule.timezone', /IANA/],
    ['empty zone', { intervalSeconds: 60, timezone: '' }, 'schedule.timezone', /IANA/],
    ['empty cron', { cron: '   ' }, 'schedule.cron', /empty/],
    ['letters', { cron: 'a b c d e' }, 'schedule.cron', /minute field "a"/],
    ['hour 24', { cron: '0 24 * * *' }, 'schedule.cron', /the hour field "24" is out of range; use 0-23/],
    ['minute 60', { cron: '0-60 * * * *' }, 'schedule.cron', /the minute field "0-60" is out of range; use 0-59/],
    ['day of month 0', { cron: '0 0 0 * *' }, 'schedule.cron', /the day-of-month field "0" is out of range; use 1-31/],
    ['month 13', { cron: '0 0 1 13 *' }, 'schedule.cron', /the month field "13" is out of range; use 1-12/],
    ['weekday 8', { cron: '0 0 * * 1,8' }, 'schedule.cron', /the day-of-week field "1,8" is out of range; use 0-7/],
    [
      'reversed range',
      { cron: '0 5-1 * * *' },
      'schedule.cron',
      /not a valid cron expression \(From value is larger than to value: '5-1'\)/,
    ],
    ['step too large', { cron: '*/90 * * * *' }, 'schedule.cron', /not a valid cron expression/],
    ['4 fields', { cron: '0 0 1 1' }, 'schedule.cron', /has 4 fields; use 5 fields .* or 6 \(second first\)/],
    ['7 fields', { cron: '0 0 0 1 1 * 2027' }, 'schedule.cron', /has 7 fields.*a year field is not supported/],
    ['unknown nickname', { cron: '@reboot' }, 'schedule.cron', /not a known nickname/],
    ['question mark', { cron: '0 0 ? * *' }, 'schedule.cron', /"\?" is not supported; use "\*" in the day-of-month field/],
    ['5L for last Friday', { cron: '0 0 * * 5L' }, 'schedule.cron', /"5#L"/],
    ['L with a number in day-of-month', { cron: '0 0 5L * *' }, 'schedule.cron', /L .* must stand alone/],
    ['W (nearest weekday)', { cron: '0 0 15W * *' }, 'schedule.cron', /day-of-month field "15W"/],
    ['30 February', { cron: '0 0 30 2 *' }, 'schedule.cron', /never fires/],
    ['31st of 30-day months', { cron: '0 0 31 4,6,9,11 *' }, 'schedule.cron', /never fires/],
    [
      'fifth Monday of February',
      { cron: '0 0 * 2 1#5' },
      'schedule.cron',
      /^schedule.cron "0 0 \* 2 1#5" fires less than once in 8 years \(it can go 40 years without an occurrence\); a cron must fire at least once in every 8 years$/,
    ],
    [
      'a rare cron with startAt and endAt',
      { cron: '0 0 * 2 1#5', timezone: 'Asia/Tokyo', startAt: at('2043-06-01T00:00:00Z'), endAt: at('2045-01-01T00:00:00Z') },
      'schedule.cron',
      /fires less than once in 8 years/,
    ],
    ['negative jitter', { intervalSeconds: 60, jitterSeconds: -1 }, 'schedule.jitterSeconds', /from 0 to 3600/],
    ['jitter over an hour', { intervalSeconds: 60, jitterSeconds: 3601 }, 'schedule.jitterSeconds', /from 0 to 3600/],
    ['fractional jitter', { intervalSeconds: 60, jitterSeconds: 0.5 }, 'schedule.jitterSeconds', /whole number/],
    ['invalid date', { runAt: new Date('not a date') }, 'schedule.runAt', /not a valid date-time/],
    ['invalid startAt', { intervalSeconds: 60, startAt: new Date(Number.NaN) }, 'schedule.startAt', /not a valid date-time/],
    [
      'startAt after endAt',
      { intervalSeconds: 60, startAt: at('2027-03-01T00:00:00Z'), endAt: at('2027-02-01T00:00:00Z') },
      'schedule.endAt',
      /must be later than schedule.startAt/,
    ],
    [
      'startAt equal to endAt',
      { intervalSeconds: 60, startAt: at('2027-03-01T00:00:00Z'), endAt: at('2027-03-01T00:00:00Z') },
      'schedule.endAt',
      /must be later than/,
    ],
    ['endAt in the past', { cron: '0 * * * *', endAt: at('2026-12-31T23:59:59Z') }, 'schedule.endAt', /in the past/],
    [
      'cron with no occurrence before endAt',
      { cron: '0 0 1 1 *', endAt: at('2027-06-01T00:00:00Z') },
      'schedule.endAt',
      /no occurrence between 2027-01-01T00:00:00.000Z and schedule.endAt \(2027-06-01T00:00:00.000Z\); move endAt later/,
    ],
    [
      'interval ending before its first run',
      { intervalSeconds: 3600, endAt: at('2027-01-01T00:30:00Z') },
      'schedule.endAt',
      /no occurrence/,
    ],
    ['runAt more than 60 s ago', { runAt: at('2026-12-31T23:00:00Z') }, 'schedule.runAt', /in the past/],
    ['runAt after endAt', { runAt: at('2027-03-01T00:00:00Z'), endAt: at('2027-02-01T00:00:00Z') }, 'schedule.runAt', /outside/],
    ['runAt before startAt', { runAt: at('2027-03-01T00:00:00Z'), startAt: at('2027-04-01T00:00:00Z') }, 'schedule.runAt', /outside/],
  ])('rejects %s', (_, input, field, message) => {
    const error = rejection(input);
    expect(error.code).toBe('BAD_USER_INPUT');
    expect(error.details).toEqual({ field });
    expect(error.message).toMatch(message);
  });

  it('accepts jitter from 0 to 3600 seconds', () => {
    expect(parseSchedule({ intervalSeconds: 60, jitterSeconds: 0 }, NOW).jitterSeconds).toBe(0);
    expect(parseSchedule({ intervalSeconds: 60, jitterSeconds: 3600 }, NOW).jitterSeconds).toBe(3600);
  });
});

describe('nextOccurrences: cron', () => {
  it('steps a 5-field expression, strictly after the given instant', () => {
    expect(next(cronSchedule('*/15 * * * *'), '2027-01-01T00:07:00Z', 4)).toEqual([
      '2027-01-01T00:15:00.000Z',
      '2027-01-01T00:30:00.000Z',
      '2027-01-01T00:45:00.000Z',
      '2027-01-01T01:00:00.000Z',
    ]);
    expect(next(cronSchedule('*/15 * * * *'), '2027-01-01T00:15:00Z', 1)).toEqual(['2027-01-01T00:30:00.000Z']);
    expect(next(cronSchedule('*/15 * * * *'), '2027-01-01T00:14:59.999Z', 1)).toEqual(['2027-01-01T00:15:00.000Z']);
  });

  it('reads a 6-field expression second first', () => {
    expect(next(cronSchedule('*/20 * * * * *'), '2027-01-01T00:00:00Z', 3)).toEqual([
      '2027-01-01T00:00:20.000Z',
      '2027-01-01T00:00:40.000Z',
      '2027-01-01T00:01:00.000Z',
    ]);
    expect(next(cronSchedule('30 0 12 * * *'), '2027-01-01T00:00:00Z', 2)).toEqual([
      '2027-01-01T12:00:30.000Z',
      '2027-01-02T12:00:30.000Z',
    ]);
  });

  it('evaluates the expression in the schedule time zone', () => {
    // 09:00 IST (+05:30) is 03:30Z.
    expect(next(cronSchedule('0 9 * * *', 'Asia/Kolkata'), '2027-01-01T00:00:00Z', 2)).toEqual([
      '2027-01-01T03:30:00.000Z',
      '2027-01-02T03:30:00.000Z',
    ]);
    // 2027-01-01 is a Friday; 09:00 EST is 14:00Z; the next weekday is Monday the 4th.
    expect(next(cronSchedule('0 9 * * 1-5', 'America/New_York'), '2027-01-01T00:00:00Z', 2)).toEqual([
      '2027-01-01T14:00:00.000Z',
      '2027-01-04T14:00:00.000Z',
    ]);
    // 09:00 local moves from 14:00Z (EST) to 13:00Z (EDT) across the spring change.
    expect(next(cronSchedule('0 9 * * *', 'America/New_York'), '2027-03-13T00:00:00Z', 2)).toEqual([
      '2027-03-13T14:00:00.000Z',
      '2027-03-14T13:00:00.000Z',
    ]);
  });

  it('finds the next leap day', () => {
    expect(next(cronSchedule('0 0 29 2 *'), '2027-01-01T00:00:00Z', 2)).toEqual(['2028-02-29T00:00:00.000Z', '2032-02-29T00:00:00.000Z']);
  });

  it('supports croner extras: last day of the month and last weekday', () => {
    expect(next(cronSchedule('0 0 L * *'), '2027-01-01T00:00:00Z', 3)).toEqual([
      '2027-01-31T00:00:00.000Z',
      '2027-02-28T00:00:00.000Z',
      '2027-03-31T00:00:00.000Z',
    ]);
    // Last Fridays of January and February 2027.
    expect(next(cronSchedule('0 0 * * 5#L'), '2027-01-01T00:00:00Z', 2)).toEqual(['2027-01-29T00:00:00.000Z', '2027-02-26T00:00:00.000Z']);
  });

  it('expands nicknames', () => {
    // 2027-01-03 is the first Sunday.
    expect(next(cronSchedule('@weekly'), '2027-01-01T00:00:00Z', 1)).toEqual(['2027-01-03T00:00:00.000Z']);
    expect(next(cronSchedule('@yearly', 'Europe/London'), '2027-01-01T00:00:00Z', 1)).toEqual(['2028-01-01T00:00:00.000Z']);
  });
});

describe('nextOccurrences: daylight saving time', () => {
  describe('America/New_York', () => {
    const zone = 'America/New_York';

    it('fires a skipped wall-clock time once, at the first instant after the gap', () => {
      const schedule = cronSchedule('30 2 * * *', zone);
      expect(next(schedule, '2027-03-13T12:00:00Z', 2)).toEqual([
        '2027-03-14T07:00:00.000Z', // 03:00 EDT
        '2027-03-15T06:30:00.000Z', // 02:30 EDT
      ]);
      expect(nextAfter(schedule, at('2027-03-14T07:00:00Z'))?.toISOString()).toBe('2027-03-15T06:30:00.000Z');
      // Two skipped times still fire only once.
      expect(next(cronSchedule('0,30 2 * * *', zone), '2027-03-14T06:00:00Z', 2)).toEqual([
        '2027-03-14T07:00:00.000Z',
        '2027-03-15T06:00:00.000Z',
      ]);
    });

    it('fires a repeated wall-clock time once, at the first of the two', () => {
      const schedule = cronSchedule('30 1 * * *', zone);
      expect(next(schedule, '2027-11-06T12:00:00Z', 2)).toEqual([
        '2027-11-07T05:30:00.000Z', // 01:30 EDT; not 06:30Z (01:30 EST)
        '2027-11-08T06:30:00.000Z', // 01:30 EST
      ]);
      expect(nextAfter(schedule, at('2027-11-07T05:30:00Z'))?.toISOString()).toBe('2027-11-08T06:30:00.000Z');
      // Asked from inside the second pass of the repeated hour (01:10 EST).
      expect(next(schedule, '2027-11-07T06:10:00Z', 1)).toEqual(['2027-11-08T06:30:00.000Z']);
    });

    it('keeps wildcard-hour expressions on real time: every real hour through fall-back', () => {
      expect(next(cronSchedule('0 * * * *', zone), '2027-11-07T04:30:00Z', 4)).toEqual([
        '2027-11-07T05:00:00.000Z', // 01:00 EDT
        '2027-11-07T06:00:00.000Z', // 01:00 EST
        '2027-11-07T07:00:00.000Z', // 02:00 EST
        '2027-11-07T08:00:00.000Z',
      ]);
      expect(next(cronSchedule('*/30 * * * *', zone), '2027-11-07T04:45:00Z', 5)).toEqual([
        '2027-11-07T05:00:00.000Z',
        '2027-11-07T05:30:00.000Z',
        '2027-11-07T06:00:00.000Z',
        '2027-11-07T06:30:00.000Z',
        '2027-11-07T07:00:00.000Z',
      ]);
    });

    it('keeps wildcard-hour expressions on real time: the hour that does not exist does not fire', () => {
      expect(next(cronSchedule('0 * * * *', zone), '2027-03-14T05:30:00Z', 3)).toEqual([
        '2027-03-14T06:00:00.000Z', // 01:00 EST
        '2027-03-14T07:00:00.000Z', // 03:00 EDT
        '2027-03-14T08:00:00.000Z',
      ]);
      expect(next(cronSchedule('30 * * * *', zone), '2027-03-14T05:45:00Z', 3)).toEqual([
        '2027-03-14T06:30:00.000Z', // 01:30 EST
        '2027-03-14T07:30:00.000Z', // 03:30 EDT (02:30 does not exist)
        '2027-03-14T08:30:00.000Z',
      ]);
    });
  });

  describe('Europe/London', () => {
    const zone = 'Europe/London';

    it('fires a skipped wall-clock time at the end of the gap', () => {
      expect(next(cronSchedule('30 1 * * *', zone), '2027-03-27T00:00:00Z', 3)).toEqual([
        '2027-03-27T01:30:00.000Z', // 01:30 GMT
        '2027-03-28T01:00:00.000Z', // 02:00 BST: 01:30 does not exist
        '2027-03-29T00:30:00.000Z', // 01:30 BST
      ]);
    });

    it('fires a repeated wall-clock time once', () => {
      expect(next(cronSchedule('30 1 * * *', zone), '2027-10-30T12:00:00Z', 2)).toEqual([
        '2027-10-31T00:30:00.000Z', // 01:30 BST; not 01:30Z (01:30 GMT)
        '2027-11-01T01:30:00.000Z',
      ]);
    });

    it('fires hourly expressions every real hour', () => {
      expect(next(cronSchedule('0 * * * *', zone), '2027-10-30T23:30:00Z', 4)).toEqual([
        '2027-10-31T00:00:00.000Z', // 01:00 BST
        '2027-10-31T01:00:00.000Z', // 01:00 GMT
        '2027-10-31T02:00:00.000Z',
        '2027-10-31T03:00:00.000Z',
      ]);
    });
  });

  describe('Australia/Lord_Howe (30-minute shift)', () => {
    const zone = 'Australia/Lord_Howe';

    it('fires a repeated wall-clock time once when clocks go back 30 minutes', () => {
      expect(next(cronSchedule('45 1 * * *', zone), '2027-04-03T00:00:00Z', 2)).toEqual([
        '2027-04-03T14:45:00.000Z', // 01:45 +11:00; not 15:15Z (01:45 +10:30)
        '2027-04-04T15:15:00.000Z', // 01:45 +10:30
      ]);
    });

    it('fires a skipped wall-clock time at the end of the 30-minute gap', () => {
      expect(next(cronSchedule('15 2 * * *', zone), '2027-10-02T00:00:00Z', 2)).toEqual([
        '2027-10-02T15:30:00.000Z', // 02:30 +11:00: 02:15 does not exist
        '2027-10-03T15:15:00.000Z', // 02:15 +11:00
      ]);
    });

    it('keeps a 15-minute rhythm in real time through both changes', () => {
      expect(next(cronSchedule('*/15 * * * *', zone), '2027-04-03T14:20:00Z', 5)).toEqual([
        '2027-04-03T14:30:00.000Z', // 01:30 +11:00
        '2027-04-03T14:45:00.000Z', // 01:45 +11:00
        '2027-04-03T15:00:00.000Z', // 01:30 +10:30
        '2027-04-03T15:15:00.000Z', // 01:45 +10:30
        '2027-04-03T15:30:00.000Z', // 02:00 +10:30
      ]);
      expect(next(cronSchedule('*/15 * * * *', zone), '2027-10-02T15:00:00Z', 3)).toEqual([
        '2027-10-02T15:15:00.000Z', // 01:45 +10:30
        '2027-10-02T15:30:00.000Z', // 02:30 +11:00
        '2027-10-02T15:45:00.000Z', // 02:45 +11:00
      ]);
    });
  });

  it('keeps intervals fixed in real time across DST', () => {
    const schedule = intervalSchedule(3600, { timezone: 'America/New_York', startAt: at('2027-03-14T05:00:00Z') });
    const occurrences = nextOccurrences(schedule, at('2027-03-14T04:00:00Z'), 4);
    expect(isos(occurrences)).toEqual([
      '2027-03-14T05:00:00.000Z',
      '2027-03-14T06:00:00.000Z',
      '2027-03-14T07:00:00.000Z',
      '2027-03-14T08:00:00.000Z',
    ]);
    expect(occurrences.map((d) => formatLocal(d, 'America/New_York'))).toEqual([
      '2027-03-14T00:00:00.000-05:00',
      '2027-03-14T01:00:00.000-05:00',
      '2027-03-14T03:00:00.000-04:00',
      '2027-03-14T04:00:00.000-04:00',
    ]);
    // A daily interval is 24 real hours, so its local time moves: 2027-11-06T11:00Z is 07:00 EDT and
    // 24 h later, 2027-11-07T11:00Z, is 06:00 EST.
    const daily = intervalSchedule(86_400, { timezone: 'America/New_York' });
    expect(nextAfter(daily, at('2027-11-06T11:00:00Z'))?.toISOString()).toBe('2027-11-07T11:00:00.000Z');
  });
});

describe('nextOccurrences: occurrences far apart', () => {
  const zone = 'America/New_York';

  it('fires a yearly skipped wall-clock time at the end of the gap, and normally the next year', () => {
    // 2027-03-14 is the spring-forward day; in 2028 clocks change on 12 March, so the 14th is EDT.
    expect(next(cronSchedule('30 2 14 3 *', zone), '2026-06-01T00:00:00Z', 2)).toEqual([
      '2027-03-14T07:00:00.000Z',
      '2028-03-14T06:30:00.000Z',
    ]);
  });

  it('fires a yearly repeated wall-clock time at the first of the two, also when asked from between them', () => {
    // 2027-11-07 is the fall-back day (01:30 EDT = 05:30Z, 01:30 EST = 06:30Z); 2028-11-07 is EST.
    expect(next(cronSchedule('30 1 7 11 *', zone), '2026-12-01T00:00:00Z', 2)).toEqual([
      '2027-11-07T05:30:00.000Z',
      '2028-11-07T06:30:00.000Z',
    ]);
    expect(next(cronSchedule('30 1 7 11 *', zone), '2027-11-07T05:45:00Z', 1)).toEqual(['2028-11-07T06:30:00.000Z']);
  });

  it('keeps real time on a fall-back day reached from months before', () => {
    expect(next(cronSchedule('0 * 7 11 *', zone), '2027-06-01T00:00:00Z', 4)).toEqual([
      '2027-11-07T04:00:00.000Z',
      '2027-11-07T05:00:00.000Z',
      '2027-11-07T06:00:00.000Z',
      '2027-11-07T07:00:00.000Z',
    ]);
  });
});

describe('previewSchedule: bounded work', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

  it('finds 100 leap days (the rarest cron allowed) in three zones with a bounded number of zone-offset and croner calls', () => {
    // Every zone offset is read through Intl, every wall-clock match through croner: count both.
    const formatToParts = jest.spyOn(Intl.DateTimeFormat.prototype, 'formatToParts');
    // `format` is a getter returning a bound function: each call reads it once.
    // (Typed as a method by lib.es5, hence the cast: jest's getter spies accept only non-function members.)
    const format = jest.spyOn(Intl.DateTimeFormat.prototype as unknown as { format: object }, 'format', 'get');
    const nextRun = jest.spyOn(Cron.prototype, 'nextRun');
    const leapYears = Array.from({ length: 500 }, (_, i) => 2027 + i)
      .filter(isLeap)
      .slice(0, MAX_PREVIEW);
    expect(leapYears.at(-1)).toBe(2436); // 2100, 2200 and 2300 are not leap years

    for (const timezone of ['America/Santiago', 'Europe/Lisbon', 'Australia/Adelaide']) {
      const occurrences = previewSchedule({ cron: '0 0 29 2 *', timezone }, MAX_PREVIEW, NOW);
      expect(occurrences.map(({ local }) => local.slice(0, 23))).toEqual(leapYears.map((year) => `${year}-02-29T00:00:00.000`));
    }
    // Walking every year in between, as the search once did, makes over 400 000 Intl calls here.
    expect(formatToParts.mock.calls.length + format.mock.calls.length).toBeLessThan(30_000);
    expect(nextRun.mock.calls.length).toBeLessThan(3_000);
  });

  it('refuses a cron rarer than once in 8 years before searching it', () => {
    expect(() => previewSchedule({ cron: '0 0 * 2 1#5', timezone: 'Europe/Paris' }, MAX_PREVIEW, NOW)).toThrow(
      /fires less than once in 8 years/,
    );
  });
});

describe('nextOccurrences: bounds and kinds', () => {
  it('never returns an occurrence before startAt or after endAt (both inclusive)', () => {
    const schedule = cronSchedule('0 * * * *', 'UTC', {
      startAt: at('2027-01-01T05:00:00Z'),
      endAt: at('2027-01-01T08:00:00Z'),
    });
    expect(next(schedule, '2027-01-01T00:00:00Z', 10)).toEqual([
      '2027-01-01T05:00:00.000Z',
      '2027-01-01T06:00:00.000Z',
      '2027-01-01T07:00:00.000Z',
      '2027-01-01T08:00:00.000Z',
    ]);
    expect(nextAfter(schedule, at('2027-01-01T08:00:00Z'))).toBeNull();
    const lateStart = cronSchedule('0 * * * *', 'UTC', { startAt: at('2027-01-01T05:00:00.500Z') });
    expect(next(lateStart, '2027-01-01T00:00:00Z', 1)).toEqual(['2027-01-01T06:00:00.000Z']);
  });

  it('starts an interval at startAt when it is later, else one interval after the reference', () => {
    const bounded = intervalSchedule(3600, { startAt: at('2027-01-01T01:00:00Z'), endAt: at('2027-01-01T03:30:00Z') });
    expect(next(bounded, '2027-01-01T00:00:00Z', 10)).toEqual([
      '2027-01-01T01:00:00.000Z',
      '2027-01-01T02:00:00.000Z',
      '2027-01-01T03:00:00.000Z',
    ]);
    expect(nextAfter(bounded, at('2027-01-01T03:00:00Z'))).toBeNull();
    expect(next(intervalSchedule(90), '2027-01-01T00:00:00Z', 2)).toEqual(['2027-01-01T00:01:30.000Z', '2027-01-01T00:03:00.000Z']);
    expect(firstOccurrence(bounded, NOW)?.toISOString()).toBe('2027-01-01T01:00:00.000Z');
    expect(firstOccurrence(bounded, at('2027-01-01T01:00:00Z'))?.toISOString()).toBe('2027-01-01T02:00:00.000Z');
    expect(firstOccurrence(intervalSchedule(60, { startAt: at('2026-06-01T00:00:00Z') }), NOW)?.toISOString()).toBe(
      '2027-01-01T00:01:00.000Z',
    );
  });

  it('starts a cron at its first instant not before startAt', () => {
    const schedule = cronSchedule('0 * * * *', 'UTC', { startAt: at('2027-01-01T05:00:00Z') });
    expect(firstOccurrence(schedule, NOW)?.toISOString()).toBe('2027-01-01T05:00:00.000Z');
    expect(firstOccurrence(cronSchedule('0 * * * *'), NOW)?.toISOString()).toBe('2027-01-01T01:00:00.000Z');
  });

  it('fires a one-off once', () => {
    const once: Schedule = { kind: 'ONCE', runAt: at('2027-01-01T00:05:00Z'), timezone: 'UTC', jitterSeconds: 0 };
    expect(next(once, '2027-01-01T00:00:00Z', 5)).toEqual(['2027-01-01T00:05:00.000Z']);
    expect(next(once, '2027-01-01T00:05:00Z', 5)).toEqual([]);
    expect(nextAfter(once, at('2027-01-01T00:05:00Z'))).toBeNull();
    // Slightly in the past at creation: firstOccurrence still returns it.
    expect(firstOccurrence(once, at('2027-01-01T00:05:30Z'))?.toISOString()).toBe('2027-01-01T00:05:00.000Z');
    expect(firstOccurrence({ ...once, endAt: at('2027-01-01T00:04:00Z') }, NOW)).toBeNull();
  });

  it('returns nothing for a count of 0', () => {
    expect(nextOccurrences(cronSchedule('* * * * *'), NOW, 0)).toEqual([]);
  });
});

describe('formatLocal', () => {
  it.each([
    ['2027-03-14T07:00:00.000Z', 'UTC', '2027-03-14T07:00:00.000+00:00'],
    ['2027-03-14T07:00:00.000Z', 'America/New_York', '2027-03-14T03:00:00.000-04:00'],
    ['2027-03-14T06:59:59.999Z', 'America/New_York', '2027-03-14T01:59:59.999-05:00'],
    ['2027-11-07T05:30:00.000Z', 'America/New_York', '2027-11-07T01:30:00.000-04:00'],
    ['2027-11-07T06:30:00.000Z', 'America/New_York', '2027-11-07T01:30:00.000-05:00'],
    ['2027-01-15T12:00:00.123Z', 'Asia/Kolkata', '2027-01-15T17:30:00.123+05:30'],
    ['2027-01-15T12:00:00.000Z', 'America/St_Johns', '2027-01-15T08:30:00.000-03:30'],
    ['2027-01-15T12:00:00.000Z', 'Pacific/Chatham', '2027-01-16T01:45:00.000+13:45'],
    ['2027-04-03T14:59:59.000Z', 'Australia/Lord_Howe', '2027-04-04T01:59:59.000+11:00'],
    ['2027-04-03T15:00:00.000Z', 'Australia/Lord_Howe', '2027-04-04T01:30:00.000+10:30'],
    ['2027-10-31T00:30:00.000Z', 'Europe/London', '2027-10-31T01:30:00.000+01:00'],
    ['2027-12-31T23:30:00.000Z', 'Europe/Paris', '2028-01-01T00:30:00.000+01:00'],
  ])('formats %s in %s', (instant, zone, expected) => {
    expect(formatLocal(at(instant), zone)).toBe(expected);
  });

  it('rejects an unknown zone', () => {
    expect(() => formatLocal(NOW, 'Mars/Base')).toThrow(RangeError);
  });
});

describe('applyJitter', () => {
  const nominal = at('2027-01-01T00:00:00.000Z');

  it('stays within [0, jitterSeconds] at millisecond granularity', () => {
    expect(applyJitter(nominal, 60, () => 0).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    // floor(0.999999 * 60001) = 60000 ms: the upper end is reachable.
    expect(applyJitter(nominal, 60, () => 0.999999).toISOString()).toBe('2027-01-01T00:01:00.000Z');
    // floor(0.5 * 10001) = 5000 ms.
    expect(applyJitter(nominal, 10, () => 0.5).toISOString()).toBe('2027-01-01T00:00:05.000Z');
    // floor(0.123456 * 3600001) = 444441 ms.
    expect(applyJitter(nominal, 3600, () => 0.123456).getTime() - nominal.getTime()).toBe(444_441);
  });

  it('leaves the nominal instant alone without jitter, and never mutates it', () => {
    expect(applyJitter(nominal, 0, () => 0.7).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    applyJitter(nominal, 60, () => 0.5);
    expect(nominal.toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });
});
