import { CronPattern } from 'croner';
import type { Schedule, ScheduleKind } from '../job.js';
import { BadUserInputError } from '../../errors/index.js';
import { longestCronGapMonths } from './cronGap.js';
import { isKnownTimeZone } from './formatLocal.js';
import { expandCronNickname } from './cronOccurrences.js';
import { firstOccurrence } from './nextOccurrences.js';

/** ScheduleInput as it arrives from GraphQL (absent and null both mean "not set"). */
export interface ScheduleInputFields {
  cron?: string | null;
  timezone?: string | null;
  intervalSeconds?: number | null;
  runAt?: Date | null;
  startAt?: Date | null;
  endAt?: Date | null;
  jitterSeconds?: number | null;
}

/** How far in the past a one-off's runAt may be (request latency, clock skew); it then runs at once. */
export const RUN_AT_GRACE_SECONDS = 60;
export const MAX_INTERVAL_SECONDS = 366 * 86_400;
export const MAX_JITTER_SECONDS = 3600;
/**
 * A cron must fire at least once in every this many years. 8 admits the leap day (`0 0 29 2 *`, whose
 * longest wait, across 2100, is 8 years) and refuses rarer ones such as a fifth Monday in February
 * (28 years and more), which would make every search for an occurrence walk decades of calendar.
 */
export const MAX_CRON_GAP_YEARS = 8;
const MAX_CRON_LENGTH = 256;

const CRON_FORMAT = 'use 5 fields (minute hour day-of-month month day-of-week) or 6 (second first), e.g. "0 9 * * 1-5"';

function isSet<T>(value: T | null | undefined): value is T {
  return value !== null && value !== undefined;
}

/**
 * Validates and normalises a ScheduleInput: the kind follows from which of cron, intervalSeconds and
 * runAt is set (exactly one must be), timezone defaults to UTC, jitterSeconds to 0. Rejects, with
 * BadUserInputError naming the field (`schedule.cron`, `schedule.timezone`, ...) and saying what to fix,
 * anything that is malformed or that would never fire after `now`.
 */
export function parseSchedule(input: ScheduleInputFields, now: Date): Schedule {
  const kinds: [keyof ScheduleInputFields, ScheduleKind][] = [
    ['cron', 'CRON'],
    ['intervalSeconds', 'INTERVAL'],
    ['runAt', 'ONCE'],
  ];
  const chosen = kinds.filter(([field]) => isSet(input[field]));
  if (chosen.length !== 1) {
    const got = chosen.length === 0 ? 'none was' : `${chosen.map(([field]) => field).join(' and ')} were`;
    throw new BadUserInputError(`A schedule needs exactly one of cron, intervalSeconds or runAt; ${got} given`, 'schedule');
  }
  const kind = chosen[0][1];

  const timezone = parseTimeZone(input.timezone);
  const jitterSeconds = parseJitter(input.jitterSeconds);
  const startAt = parseInstant(input.startAt, 'startAt');
  const endAt = parseInstant(input.endAt, 'endAt');
  const common = { timezone, jitterSeconds, ...(startAt && { startAt }), ...(endAt && { endAt }) };
  const schedule: Schedule =
    kind === 'CRON'
      ? { kind, ...common, cron: parseCron(input.cron as string) }
      : kind === 'INTERVAL'
        ? { kind, ...common, intervalSeconds: parseInterval(input.intervalSeconds as number) }
        : { kind, ...common, runAt: parseDate(input.runAt as Date, 'runAt') };

  if (startAt && endAt && startAt.getTime() >= endAt.getTime()) {
    throw new BadUserInputError(
      `schedule.endAt (${endAt.toISOString()}) must be later than schedule.startAt (${startAt.toISOString()})`,
      'schedule.endAt',
    );
  }
  if (endAt && endAt.getTime() < now.getTime()) {
    throw new BadUserInputError(`schedule.endAt (${endAt.toISOString()}) is in the past; give a later endAt or none`, 'schedule.endAt');
  }
  if (schedule.kind === 'ONCE') checkRunAt(schedule.runAt, startAt, endAt, now);

  if (firstOccurrence(schedule, now) === null) {
    const from = new Date(Math.max(now.getTime(), startAt?.getTime() ?? 0)).toISOString();
    throw endAt
      ? new BadUserInputError(
          `The schedule has no occurrence between ${from} and schedule.endAt (${endAt.toISOString()}); move endAt later`,
          'schedule.endAt',
        )
      : new BadUserInputError(`The schedule has no occurrence after ${from}; move startAt earlier`, 'schedule.startAt');
  }
  return schedule;
}

function parseInstant(value: Date | null | undefined, field: 'startAt' | 'endAt'): Date | undefined {
  return isSet(value) ? parseDate(value, field) : undefined;
}

function parseDate(value: Date, field: 'runAt' | 'startAt' | 'endAt'): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new BadUserInputError(
      `schedule.${field} is not a valid date-time; use ISO-8601 with an offset, e.g. "2027-03-14T09:00:00Z"`,
      `schedule.${field}`,
    );
  }
  return new Date(value.getTime());
}

function checkRunAt(runAt: Date, startAt: Date | undefined, endAt: Date | undefined, now: Date): void {
  if (runAt.getTime() < now.getTime() - RUN_AT_GRACE_SECONDS * 1000) {
    throw new BadUserInputError(
      `schedule.runAt (${runAt.toISOString()}) is in the past; give a future instant (or trigger the job manually to run it now)`,
      'schedule.runAt',
    );
  }
  if ((startAt && runAt < startAt) || (endAt && runAt > endAt)) {
    throw new BadUserInputError(
      `schedule.runAt (${runAt.toISOString()}) is outside schedule.startAt..schedule.endAt; move runAt inside them or drop them`,
      'schedule.runAt',
    );
  }
}

function parseInterval(seconds: number): number {
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_INTERVAL_SECONDS) {
    throw new BadUserInputError(
      `schedule.intervalSeconds must be a whole number of seconds from 1 to ${MAX_INTERVAL_SECONDS} (366 days); got ${seconds}`,
      'schedule.intervalSeconds',
    );
  }
  return seconds;
}

function parseJitter(seconds: number | null | undefined): number {
  if (!isSet(seconds)) return 0;
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_JITTER_SECONDS) {
    throw new BadUserInputError(
      `schedule.jitterSeconds must be a whole number of seconds from 0 to ${MAX_JITTER_SECONDS}; got ${seconds}`,
      'schedule.jitterSeconds',
    );
  }
  return seconds;
}

let canonicalZoneNames: Map<string, string> | undefined;

/** A known IANA zone, spelt as the IANA database spells it when only the letter case differs. */
function parseTimeZone(timezone: string | null | undefined): string {
  if (!isSet(timezone)) return 'UTC';
  const name = timezone.trim();
  // Intl may one day accept offsets such as "+05:00"; they are not zones (no DST rules), so refuse them.
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name) || !isKnownTimeZone(name)) {
    throw new BadUserInputError(
      `schedule.timezone "${timezone.slice(0, 100)}" is not a known IANA time zone; use a name such as "Europe/Paris", "America/New_York" or "UTC"`,
      'schedule.timezone',
    );
  }
  canonicalZoneNames ??= new Map(['UTC', ...Intl.supportedValuesOf('timeZone')].map((zone) => [zone.toLowerCase(), zone]));
  return canonicalZoneNames.get(name.toLowerCase()) ?? name;
}

const FIELD_NAMES = ['second', 'minute', 'hour', 'day-of-month', 'month', 'day-of-week'] as const;
const FIELD_RANGES: Record<(typeof FIELD_NAMES)[number], [number, number]> = {
  second: [0, 59],
  minute: [0, 59],
  hour: [0, 23],
  'day-of-month': [1, 31],
  month: [1, 12],
  'day-of-week': [0, 7],
};
const FIELD_CHARACTERS: Record<(typeof FIELD_NAMES)[number], RegExp> = {
  second: /^[0-9*,/-]+$/,
  minute: /^[0-9*,/-]+$/,
  hour: /^[0-9*,/-]+$/,
  'day-of-month': /^[0-9*,/L-]+$/,
  month: /^[0-9A-Za-z*,/-]+$/,
  'day-of-week': /^[0-9A-Za-z*,/#-]+$/,
};

/**
 * A cron expression croner accepts, with 5 or 6 fields or a nickname (@yearly, @annually, @monthly,
 * @weekly, @daily, @hourly), returned with its whitespace normalised and a nickname expanded to its five
 * fields (a stored Schedule's cron always has 5 or 6 fields). Beyond plain cron it accepts what
 * croner supports: names (JAN, MON), `L` (last day of the month), `5#2` (second Friday) and `5#L`
 * (last Friday). Refused although croner parses them: `?` (croner substitutes the current time at parse
 * time, so the schedule would change meaning whenever it is parsed again), and `L` anywhere else than
 * alone in day-of-month or as `#L` (croner reads `5L` as "every Friday"). Not supported by croner: `W`,
 * a year field.
 */
function parseCron(raw: string): string {
  const fail = (message: string): never => {
    throw new BadUserInputError(message, 'schedule.cron');
  };
  const cron = String(raw).trim().replace(/\s+/g, ' ');
  if (cron === '') fail(`schedule.cron is empty; ${CRON_FORMAT}`);
  if (cron.length > MAX_CRON_LENGTH) fail(`schedule.cron is longer than ${MAX_CRON_LENGTH} characters`);

  const expanded = expandCronNickname(cron);
  if (expanded.startsWith('@')) {
    fail(`schedule.cron "${cron}" is not a known nickname; use @yearly, @monthly, @weekly, @daily or @hourly, or ${CRON_FORMAT}`);
  }
  const fields = expanded.split(' ');
  if (fields.length !== 5 && fields.length !== 6) {
    fail(
      `schedule.cron "${cron}" has ${fields.length} field${fields.length === 1 ? '' : 's'}; ${CRON_FORMAT}` +
        (fields.length === 7 ? ' (a year field is not supported)' : ''),
    );
  }
  const named = fields.length === 6 ? fields : ['0', ...fields];
  named.forEach((field, index) => {
    const name = FIELD_NAMES[index];
    if (field.includes('?')) fail(`schedule.cron "${cron}": "?" is not supported; use "*" in the ${name} field`);
    if (!FIELD_CHARACTERS[name].test(field)) {
      fail(`schedule.cron "${cron}": the ${name} field "${field}" contains characters that are not allowed there`);
    }
    // croner's own range errors count days and months from 0; check values (not steps or #n) here.
    const [min, max] = FIELD_RANGES[name];
    const values = field.split(',').flatMap((item) => item.split('#')[0].split('/')[0].match(/\d+/g) ?? []);
    if (values.some((value) => Number(value) < min || Number(value) > max)) {
      fail(`schedule.cron "${cron}": the ${name} field "${field}" is out of range; use ${min}-${max}`);
    }
  });
  if (named[3].split(',').some((item) => item.includes('L') && item !== 'L')) {
    fail(`schedule.cron "${cron}": in the day-of-month field, L (last day of the month) must stand alone, e.g. "L" or "1,15,L"`);
  }
  if (named[5].split(',').some((item) => /L/i.test(item.replace(/#L$/i, '')))) {
    fail(`schedule.cron "${cron}": in the day-of-week field, write the last given weekday of the month as "5#L" (last Friday)`);
  }

  let pattern: CronPattern;
  try {
    pattern = new CronPattern(expanded);
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern:\s*/, '') : String(error);
    return fail(`schedule.cron "${cron}" is not a valid cron expression (${reason}); ${CRON_FORMAT}`);
  }
  const gap = longestCronGapMonths(pattern);
  if (gap === null) {
    fail(
      `schedule.cron "${cron}" never fires: no month it allows has the day of the month it asks for; fix the day-of-month or month field`,
    );
  }
  if (gap !== null && gap >= MAX_CRON_GAP_YEARS * 12) {
    fail(
      `schedule.cron "${cron}" fires less than once in ${MAX_CRON_GAP_YEARS} years (it can go ${Math.round((gap + 1) / 12)} years without an occurrence); ` +
        `a cron must fire at least once in every ${MAX_CRON_GAP_YEARS} years`,
    );
  }
  return expanded;
}
