import type { CalendarDoc } from '../domain/calendar.js';
import { parseCalendarName, parseCalendarWindows } from '../domain/schedule/parseExclusions.js';
import { NotFoundError } from '../errors/index.js';
import type { CalendarStore } from '../store/calendarStore.js';
import type { CalendarInputFields } from './createCalendar.js';
import { parseDescription } from './parseJobInput.js';
import type { ChangeRecorder } from '../changes/changeLog.js';
import { calendarChangeEntry } from '../domain/recordedFields.js';

/**
 * Replaces a calendar's windows (and description), then copies them into every job that names it
 * (one update of all of them): the jobs' nextRunAt changes at once, and the scheduler excludes by
 * the new windows from its next pass over each job, for the occurrences it has not materialised yet
 * (those within the look-ahead, LOOK_AHEAD_MS, keep what they were given). Returns the calendar
 * and how many jobs were updated.
 */
export async function updateCalendar(
  { calendars, changes }: { calendars: CalendarStore; changes: ChangeRecorder },
  input: CalendarInputFields,
  now: Date,
): Promise<{ calendar: CalendarDoc; jobsUpdated: number }> {
  const name = parseCalendarName(input.name, 'name');
  const windows = parseCalendarWindows(input.windows, now);
  // Read first for its change record (the update returns the calendar as written).
  const before = await calendars.findByName(name);
  const description = parseDescription(input.description);
  // The same windows and description again change nothing: no write, no record (as for a job).
  if (before && before.description === description && JSON.stringify(before.windows) === JSON.stringify(windows)) {
    return { calendar: before, jobsUpdated: 0 };
  }
  const calendar = await calendars.update(name, { windows, description, updatedAt: now });
  if (!calendar) throw new NotFoundError('Calendar', name);
  const jobsUpdated = await calendars.copyToJobs(name, windows, now);
  await changes.record(calendarChangeEntry('UPDATE_CALENDAR', before ?? calendar, calendar, now, { jobsUpdated }));
  return { calendar, jobsUpdated };
}
