import type { Exclusion, ExclusionWindow } from '../exclusion.js';
import { BadUserInputError } from '../../errors/index.js';
import { parseSchedule } from './parseSchedule.js';
import { isPlainText } from '../plainText.js';

/** ExclusionInput as it arrives from GraphQL (absent and null both mean "not set"). */
export interface ExclusionInputFields {
  name?: string | null;
  timezone?: string | null;
  from?: string | null;
  to?: string | null;
  cron?: string | null;
  durationSeconds?: number | null;
  calendar?: string | null;
}

/** Bounds on exclusions, so that a job's or calendar's windows stay cheap to check per occurrence. */
export const EXCLUSION_LIMITS = {
  /** Exclusions one job lists (windows and calendars together). */
  perJob: 20,
  /** Windows one calendar holds. */
  perCalendar: 200,
  /** A window's name. */
  nameLength: 100,
  /** A CRON window's length: a year and a day. */
  maxDurationSeconds: 366 * 86_400,
  /** A DATES window's length in days. */
  maxDays: 3660,
};

/** A calendar's name: also a key in each job that names it (JobExclusionFields.calendarWindows), so no dots or `$`. */
export const CALENDAR_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isSet<T>(value: T | null | undefined): value is T {
  return value !== null && value !== undefined;
}

/** A calendar name, or BadUserInputError naming `field`. */
export function parseCalendarName(name: string, field: string): string {
  if (!CALENDAR_NAME.test(name)) {
    throw new BadUserInputError(
      `${field} "${name.slice(0, 70)}" is not a valid calendar name: 1 to 64 letters, digits, "_" or "-", starting with a letter or digit`,
      field,
    );
  }
  return name;
}

/**
 * Validates a job's (`allowCalendars`) or a calendar's exclusions: each has exactly one of
 * `from`+`to` (local dates, both included), `cron`+`durationSeconds`, or `calendar` (a job's only);
 * `timezone` defaults to `defaultZone`. Errors are BadUserInputError naming the field
 * (`exclusions[2].cron`, ...).
 */
export function parseExclusions(
  inputs: readonly ExclusionInputFields[],
  { field, defaultZone, allowCalendars, max, now }: { field: string; defaultZone: string; allowCalendars: boolean; max: number; now: Date },
): Exclusion[] {
  if (inputs.length > max) throw new BadUserInputError(`${field} may list at most ${max} exclusions; got ${inputs.length}`, field);
  return inputs.map((input, index) => parseExclusion(input, `${field}[${index}]`, defaultZone, allowCalendars, now));
}

function parseExclusion(input: ExclusionInputFields, field: string, defaultZone: string, allowCalendars: boolean, now: Date): Exclusion {
  const kinds = [
    isSet(input.from) || isSet(input.to) ? 'from and to' : null,
    isSet(input.cron) || isSet(input.durationSeconds) ? 'cron and durationSeconds' : null,
    isSet(input.calendar) ? 'calendar' : null,
  ].filter((kind) => kind !== null);
  const allowed = allowCalendars
    ? 'from and to (dates), cron and durationSeconds, or calendar'
    : 'from and to (dates), or cron and durationSeconds';
  if (kinds.length !== 1) throw new BadUserInputError(`${field} needs exactly one of ${allowed}; got ${kinds.join(', ') || 'none'}`, field);
  if (isSet(input.calendar)) {
    if (!allowCalendars) throw new BadUserInputError(`${field}: a calendar's windows cannot name another calendar`, `${field}.calendar`);
    if (isSet(input.name) || isSet(input.timezone)) {
      throw new BadUserInputError(`${field}: a calendar exclusion takes its name and time zones from the calendar`, field);
    }
    return { kind: 'CALENDAR', calendar: parseCalendarName(input.calendar, `${field}.calendar`) };
  }
  const timezone = parseZone(input.timezone ?? defaultZone, field, now);
  if (isSet(input.cron) || isSet(input.durationSeconds)) {
    if (!isSet(input.cron) || !isSet(input.durationSeconds)) {
      throw new BadUserInputError(`${field} needs both cron (when each window opens) and durationSeconds (how long it lasts)`, field);
    }
    const cron = parseCron(input.cron, timezone, field, now);
    const durationSeconds = input.durationSeconds;
    if (!Number.isInteger(durationSeconds) || durationSeconds < 1 || durationSeconds > EXCLUSION_LIMITS.maxDurationSeconds) {
      throw new BadUserInputError(
        `${field}.durationSeconds must be a whole number of seconds from 1 to ${EXCLUSION_LIMITS.maxDurationSeconds}; got ${durationSeconds}`,
        `${field}.durationSeconds`,
      );
    }
    const name = parseWindowName(input.name, field) ?? `cron "${cron}" for ${durationSeconds}s in ${timezone}`;
    return { kind: 'CRON', name, timezone, cron, durationSeconds };
  }
  if (!isSet(input.from) || !isSet(input.to)) {
    throw new BadUserInputError(`${field} needs both from and to (local dates, YYYY-MM-DD, both included)`, field);
  }
  const from = parseDate(input.from, `${field}.from`);
  const to = parseDate(input.to, `${field}.to`);
  const days = (Date.parse(to) - Date.parse(from)) / 86_400_000;
  if (days < 0) throw new BadUserInputError(`${field}.to (${to}) is before ${field}.from (${from})`, `${field}.to`);
  if (days >= EXCLUSION_LIMITS.maxDays) {
    throw new BadUserInputError(`${field} may span at most ${EXCLUSION_LIMITS.maxDays} days; got ${days + 1}`, `${field}.to`);
  }
  const name = parseWindowName(input.name, field) ?? (from === to ? `${from} in ${timezone}` : `${from} to ${to} in ${timezone}`);
  return { kind: 'DATES', name, timezone, from, to };
}

/** The windows of a calendar (no calendar references). */
export function parseCalendarWindows(inputs: readonly ExclusionInputFields[], now: Date): ExclusionWindow[] {
  return parseExclusions(inputs, {
    field: 'windows',
    defaultZone: 'UTC',
    allowCalendars: false,
    max: EXCLUSION_LIMITS.perCalendar,
    now,
  }) as ExclusionWindow[];
}

function parseWindowName(name: string | null | undefined, field: string): string | null {
  if (!isSet(name)) return null;
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > EXCLUSION_LIMITS.nameLength || !isPlainText(trimmed)) {
    throw new BadUserInputError(
      `${field}.name must be 1 to ${EXCLUSION_LIMITS.nameLength} characters without control characters`,
      `${field}.name`,
    );
  }
  return trimmed;
}

function parseDate(value: string, field: string): string {
  const match = DATE.exec(value.trim());
  const date = match && new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  if (!match || !date || date.getUTCDate() !== Number(match[3]) || date.getUTCMonth() !== Number(match[2]) - 1) {
    throw new BadUserInputError(`${field} "${value.slice(0, 40)}" is not a date; use YYYY-MM-DD, e.g. "2027-12-24"`, field);
  }
  return match[0];
}

/** Schedule validation restated for a window's field: the same rules for zones and cron expressions. */
function rethrowAs<T>(field: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof BadUserInputError) {
      const message = error.message.replaceAll('schedule.', `${field}.`);
      const inner = typeof error.details.field === 'string' ? error.details.field.replace(/^schedule\./, '') : 'cron';
      throw new BadUserInputError(message, `${field}.${inner}`);
    }
    throw error;
  }
}

function parseZone(timezone: string, field: string, now: Date): string {
  return rethrowAs(field, () => parseSchedule({ intervalSeconds: 60, timezone }, now).timezone);
}

function parseCron(cron: string, timezone: string, field: string, now: Date): string {
  const schedule = rethrowAs(field, () => parseSchedule({ cron, timezone }, now));
  return schedule.kind === 'CRON' ? schedule.cron : cron;
}
