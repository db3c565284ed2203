import { describe, expect, it } from '@jest/globals';
import type { ExclusionWindow } from '../../src/domain/exclusion.js';
import { exclusionWindowsOf, excludedReason } from '../../src/domain/exclusion.js';
import type { Schedule } from '../../src/domain/job.js';
import { exclusionAt, firstIncluded, SEARCH_GAVE_UP } from '../../src/domain/schedule/exclusionWindows.js';
import { nextRunAt } from '../../src/domain/schedule/nextRunAt.js';
import { previewSchedule } from '../../src/domain/schedule/previewSchedule.js';
import { BadUserInputError, ExclusionSearchLimitError } from '../../src/errors/index.js';
import { parseExclusions } from '../../src/domain/schedule/parseExclusions.js';
import { planOccurrences } from '../../src/scheduler/planOccurrences.js';
import { jobDoc } from '../support/fixtures.js';

const at = (iso: string) => new Date(iso);
const ms = (iso: string) => Date.parse(iso);

// Europe/Berlin leaves summer time on 2027-10-31 at 03:00 CEST (01:00Z); that weekend has 49 hours.
const berlinWeekend: ExclusionWindow = {
  kind: 'CRON',
  name: 'Weekend',
  timezone: 'Europe/Berlin',
  cron: '0 0 * * 6',
  durationSeconds: 48 * 3600,
};
const berlinChristmas: ExclusionWindow = {
  kind: 'DATES',
  name: 'Christmas',
  timezone: 'Europe/Berlin',
  from: '2027-12-24',
  to: '2027-12-26',
};
// America/New_York starts summer time on 2027-03-14 at 02:00 EST (07:00Z): 02:00-03:00 local does not exist.
const newYorkWeekend: ExclusionWindow = {
  kind: 'DATES',
  name: 'DST weekend',
  timezone: 'America/New_York',
  from: '2027-03-13',
  to: '2027-03-14',
};
const newYorkNight: ExclusionWindow = {
  kind: 'CRON',
  name: 'Night',
  timezone: 'America/New_York',
  cron: '30 2 * * *',
  durationSeconds: 3600,
};

describe('exclusion windows in Europe/Berlin', () => {
  it('a weekend window (Saturday 00:00 for 48 local hours) covers a 49-hour weekend across the end of summer time', () => {
    // Saturday 00:00 CEST is Friday 22:00Z; Monday 00:00 CET is Sunday 23:00Z.
    expect(exclusionAt([berlinWeekend], at('2027-10-29T21:59:59Z'))).toBeNull();
    expect(exclusionAt([berlinWeekend], at('2027-10-29T22:00:00Z'))).toEqual({ name: 'Weekend', end: ms('2027-10-31T23:00:00Z') });
    // Sunday 23:30 CET: a real 48-hour window would have closed at 22:00Z, an hour too early.
    expect(exclusionAt([berlinWeekend], at('2027-10-31T22:30:00Z'))?.name).toBe('Weekend');
    expect(exclusionAt([berlinWeekend], at('2027-10-31T23:00:00Z'))).toBeNull();
    // An ordinary weekend: 48 real hours.
    expect(exclusionAt([berlinWeekend], at('2027-11-06T23:00:00Z'))?.end).toBe(ms('2027-11-07T23:00:00Z'));
    expect(exclusionAt([berlinWeekend], at('2027-11-03T12:00:00Z'))).toBeNull();
  });

  it('a date range covers its local days, both included, midnight to midnight', () => {
    expect(exclusionAt([berlinChristmas], at('2027-12-23T22:59:59Z'))).toBeNull();
    expect(exclusionAt([berlinChristmas], at('2027-12-23T23:00:00Z'))).toEqual({ name: 'Christmas', end: ms('2027-12-26T23:00:00Z') });
    expect(exclusionAt([berlinChristmas], at('2027-12-26T22:59:59Z'))?.name).toBe('Christmas');
    expect(exclusionAt([berlinChristmas], at('2027-12-26T23:00:00Z'))).toBeNull();
  });

  it('previewSchedule leaves the excluded weekend out; an exclusion covering all time is reported, not searched forever', () => {
    const daily = { cron: '0 9 * * *', timezone: 'Europe/Berlin' };
    const preview = previewSchedule(daily, 3, at('2027-10-28T12:00:00Z'), [berlinWeekend]);
    expect(preview.map((p) => p.local)).toEqual([
      '2027-10-29T09:00:00.000+02:00',
      '2027-11-01T09:00:00.000+01:00',
      '2027-11-02T09:00:00.000+01:00',
    ]);
    const always: ExclusionWindow = { kind: 'CRON', name: 'Always', timezone: 'UTC', cron: '0 0 * * *', durationSeconds: 86_400 };
    expect(() => previewSchedule(daily, 3, at('2027-10-28T12:00:00Z'), [always])).toThrow(ExclusionSearchLimitError);
    const schedule: Schedule = { kind: 'CRON', cron: '0 9 * * *', timezone: 'Europe/Berlin', jitterSeconds: 0 };
    expect(firstIncluded(schedule, [always], at('2027-10-29T07:00:00Z'))).toBe(SEARCH_GAVE_UP);
  });

  it("nextRunAt skips an excluded occurrence, the job's own windows and its calendars' alike", () => {
    const schedule: Schedule = { kind: 'CRON', cron: '0 9 * * *', timezone: 'Europe/Berlin', jitterSeconds: 0 };
    // The cursor (Saturday 09:00, not materialised yet) is inside the weekend: the next run is Monday.
    const job = jobDoc(at('2027-10-30T07:00:00Z'), { schedule, exclusions: [berlinWeekend] });
    expect(nextRunAt(job, at('2027-10-29T12:00:00Z'))?.toISOString()).toBe('2027-11-01T08:00:00.000Z');
    expect(nextRunAt({ ...job, exclusions: [] }, at('2027-10-29T12:00:00Z'))?.toISOString()).toBe('2027-10-30T07:00:00.000Z');

    const viaCalendar = {
      ...job,
      exclusions: [{ kind: 'CALENDAR' as const, calendar: 'weekends' }],
      calendarWindows: { weekends: [berlinWeekend] },
    };
    expect(nextRunAt(viaCalendar, at('2027-10-29T12:00:00Z'))?.toISOString()).toBe('2027-11-01T08:00:00.000Z');
    expect(exclusionWindowsOf(viaCalendar).map((w) => w.name)).toEqual(['Weekend (calendar weekends)']);
  });
});

describe('exclusion windows in America/New_York', () => {
  it('a date range over the start of summer time lasts 47 hours', () => {
    expect(exclusionAt([newYorkWeekend], at('2027-03-13T04:59:59Z'))).toBeNull();
    expect(exclusionAt([newYorkWeekend], at('2027-03-13T05:00:00Z'))).toEqual({ name: 'DST weekend', end: ms('2027-03-15T04:00:00Z') });
    expect(exclusionAt([newYorkWeekend], at('2027-03-15T03:59:59Z'))?.name).toBe('DST weekend');
    expect(exclusionAt([newYorkWeekend], at('2027-03-15T04:00:00Z'))).toBeNull();
  });

  it('a window whose start is skipped by the clocks opens at the first instant after the gap, as a schedule fires', () => {
    // 02:30 does not exist on 2027-03-14: the window opens at 03:00 EDT (07:00Z) and lasts until 04:00 EDT.
    expect(exclusionAt([newYorkNight], at('2027-03-14T06:59:59Z'))).toBeNull();
    expect(exclusionAt([newYorkNight], at('2027-03-14T07:00:00Z'))).toEqual({ name: 'Night', end: ms('2027-03-14T08:00:00Z') });
    expect(exclusionAt([newYorkNight], at('2027-03-14T08:00:00Z'))).toBeNull();
    // The day before: 02:30 to 03:30 EST.
    expect(exclusionAt([newYorkNight], at('2027-03-13T07:45:00Z'))?.end).toBe(ms('2027-03-13T08:30:00Z'));
  });

  it('planOccurrences records an hourly job inside the window SKIPPED with the window named, and runs the rest', () => {
    const schedule: Schedule = { kind: 'CRON', cron: '0 * * * *', timezone: 'America/New_York', jitterSeconds: 0 };
    const job = jobDoc(at('2027-03-13T04:00:00Z'), { schedule, exclusions: [newYorkWeekend] });
    const plan = planOccurrences(job, at('2027-03-13T04:00:00Z'), at('2027-03-13T06:00:00Z'), 60_000);
    expect(plan.occurrences.map((o) => [o.nominal.toISOString(), o.skippedReason, o.excludedBy])).toEqual([
      ['2027-03-13T04:00:00.000Z', null, undefined],
      ['2027-03-13T05:00:00.000Z', excludedReason('DST weekend'), 'DST weekend'],
      ['2027-03-13T06:00:00.000Z', excludedReason('DST weekend'), 'DST weekend'],
    ]);
  });
});

describe('parseExclusions', () => {
  const now = at('2027-01-01T00:00:00Z');
  const parse = (inputs: object[], allowCalendars = true) =>
    parseExclusions(inputs, { field: 'exclusions', defaultZone: 'Europe/Berlin', allowCalendars, max: 3, now });
  const fieldOf = (inputs: object[], allowCalendars = true): unknown => {
    try {
      parse(inputs, allowCalendars);
    } catch (error) {
      return error instanceof BadUserInputError ? error.details.field : error;
    }
    return 'accepted';
  };

  it("normalises each kind, defaulting the zone to the schedule's and naming windows that have no name", () => {
    expect(
      parse([
        { from: '2027-12-24', to: '2027-12-26' },
        { name: 'Weekend', cron: '@weekly', durationSeconds: 86_400, timezone: 'america/new_york' },
        { calendar: 'holidays' },
      ]),
    ).toEqual([
      { kind: 'DATES', name: '2027-12-24 to 2027-12-26 in Europe/Berlin', timezone: 'Europe/Berlin', from: '2027-12-24', to: '2027-12-26' },
      { kind: 'CRON', name: 'Weekend', timezone: 'America/New_York', cron: '0 0 * * 0', durationSeconds: 86_400 },
      { kind: 'CALENDAR', calendar: 'holidays' },
    ]);
  });

  it('refuses, naming the field: mixed or missing kinds, bad dates, zones, crons and durations, too many, calendars in a calendar', () => {
    expect(fieldOf([{ from: '2027-12-24', to: '2027-12-26', calendar: 'x' }])).toBe('exclusions[0]');
    expect(fieldOf([{}])).toBe('exclusions[0]');
    expect(fieldOf([{ from: '2027-02-30', to: '2027-03-01' }])).toBe('exclusions[0].from');
    expect(fieldOf([{ from: '2027-03-02', to: '2027-03-01' }])).toBe('exclusions[0].to');
    expect(fieldOf([{ from: '2027-03-01', to: '2027-03-01', timezone: 'Mars/Olympus' }])).toBe('exclusions[0].timezone');
    expect(fieldOf([{ cron: '0 0 * * 6' }])).toBe('exclusions[0]');
    expect(fieldOf([{ cron: '0 0 * *', durationSeconds: 60 }])).toBe('exclusions[0].cron');
    expect(fieldOf([{ cron: '0 0 * * 6', durationSeconds: 0 }])).toBe('exclusions[0].durationSeconds');
    expect(fieldOf([{ calendar: 'no.dots' }])).toBe('exclusions[0].calendar');
    expect(fieldOf([{ calendar: 'holidays' }], false)).toBe('exclusions[0].calendar');
    expect(fieldOf([{ calendar: 'a' }, { calendar: 'b' }, { calendar: 'c' }, { calendar: 'd' }])).toBe('exclusions');
  });
});
