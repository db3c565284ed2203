import type { Exclusion, ExclusionWindow, JobExclusionFields } from '../domain/exclusion.js';
import { exclusionWindowsOf } from '../domain/exclusion.js';
import { isDeepStrictEqual } from 'node:util';
import type { JobDoc, Schedule } from '../domain/job.js';
import type { JobChange } from '../store/jobStore.js';
import { firstIncluded, MAX_EXCLUDED_JUMPS, SEARCH_GAVE_UP } from '../domain/schedule/exclusionWindows.js';
import { firstOccurrence } from '../domain/schedule/nextOccurrences.js';
import { EXCLUSION_LIMITS, parseExclusions, type ExclusionInputFields } from '../domain/schedule/parseExclusions.js';
import { BadUserInputError, ExclusionSearchLimitError } from '../errors/index.js';
import type { CalendarStore } from '../store/calendarStore.js';

/**
 * A job's exclusion fields from its input: the exclusions validated (a window's zone defaults to the
 * schedule's), the windows of the calendars they name copied in (one read of the tenant's calendars),
 * and a check that the schedule still has an occurrence outside them (else ExclusionSearchLimitError:
 * exclusions covering all time would leave a job that never runs, silently). An empty list clears them.
 */
export async function jobExclusions(
  calendars: Pick<CalendarStore, 'findByNames'>,
  input: readonly ExclusionInputFields[] | null,
  schedule: Schedule,
  now: Date,
): Promise<Required<JobExclusionFields>> {
  const fields = await resolveExclusions(calendars, input ?? [], schedule.timezone, now);
  checkSearchable(fields, schedule, now);
  return fields;
}

/**
 * The change of a job's exclusions fields that `input` makes (null when none). An ACTIVE job is
 * rescheduled as by a schedule change (its cursor taken back to its first occurrence after `now`,
 * then applySchedule): its waiting executions inside the look-ahead that the new exclusions cover
 * are cancelled ("schedule changed") rather than left to run, and the occurrences a removed
 * exclusion skipped but not yet reached are materialised to run.
 */
export async function exclusionChange(
  calendars: Pick<CalendarStore, 'findByNames'>,
  current: JobDoc,
  input: readonly ExclusionInputFields[] | null,
  change: JobChange | null,
  now: Date,
): Promise<JobChange | null> {
  const fields = await jobExclusions(calendars, input, change?.schedule ?? current.schedule, now);
  const kept = {
    exclusions: current.exclusions ?? [],
    calendarWindows: current.calendarWindows ?? {},
    calendarNames: current.calendarNames ?? [],
  };
  if (isDeepStrictEqual(fields, kept)) return null;
  if (change?.schedule !== undefined || current.status !== 'ACTIVE') return fields;
  const scheduleCursor = firstOccurrence(current.schedule, now);
  return { ...fields, scheduleCursor, status: scheduleCursor ? 'ACTIVE' : 'COMPLETED' };
}

/**
 * For a schedule change that leaves the exclusions as they are: the new schedule must still have an
 * occurrence outside them (ExclusionSearchLimitError otherwise), as when the exclusions change.
 */
export function checkNewSchedule(current: JobDoc, schedule: Schedule, now: Date): void {
  checkSearchable({ exclusions: current.exclusions ?? [], calendarWindows: current.calendarWindows ?? {} }, schedule, now);
}

/** The windows previewSchedule leaves out: `input` validated as a job's, its calendars read. */
export async function previewExclusions(
  calendars: Pick<CalendarStore, 'findByNames'>,
  input: readonly ExclusionInputFields[],
  timezone: string | null | undefined,
  now: Date,
): Promise<ExclusionWindow[]> {
  return exclusionWindowsOf(await resolveExclusions(calendars, input, timezone ?? 'UTC', now));
}

async function resolveExclusions(
  calendars: Pick<CalendarStore, 'findByNames'>,
  input: readonly ExclusionInputFields[],
  defaultZone: string,
  now: Date,
): Promise<Required<JobExclusionFields>> {
  const exclusions = parseExclusions(input, { field: 'exclusions', defaultZone, allowCalendars: true, max: EXCLUSION_LIMITS.perJob, now });
  const calendarNames = [...new Set(exclusions.flatMap((e) => (e.kind === 'CALENDAR' ? [e.calendar] : [])))];
  const found = await calendars.findByNames(calendarNames);
  const calendarWindows = Object.fromEntries(found.map((calendar) => [calendar.name, calendar.windows]));
  const missing = calendarNames.find((name) => !(name in calendarWindows));
  if (missing !== undefined) {
    const index = exclusions.findIndex((e) => e.kind === 'CALENDAR' && e.calendar === missing);
    throw new BadUserInputError(
      `exclusions[${index}].calendar "${missing}" is not a calendar of this tenant; define it with createCalendar first`,
      `exclusions[${index}].calendar`,
    );
  }
  return { exclusions, calendarWindows, calendarNames };
}

/** Throws ExclusionSearchLimitError when the schedule's next occurrences are all excluded as far as the search goes. */
function checkSearchable(
  fields: { exclusions: Exclusion[]; calendarWindows: JobExclusionFields['calendarWindows'] },
  schedule: Schedule,
  now: Date,
): void {
  const windows = exclusionWindowsOf(fields);
  if (windows.length > 0 && firstIncluded(schedule, windows, firstOccurrence(schedule, now)) === SEARCH_GAVE_UP) {
    throw new ExclusionSearchLimitError(MAX_EXCLUDED_JUMPS);
  }
}
