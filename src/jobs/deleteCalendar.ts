import { parseCalendarName } from '../domain/schedule/parseExclusions.js';
import { CalendarInUseError, NotFoundError } from '../errors/index.js';
import type { CalendarStore } from '../store/calendarStore.js';
import type { ChangeRecorder } from '../changes/changeLog.js';
import { calendarChangeEntry } from '../domain/recordedFields.js';

/** How many of the jobs naming a calendar a refused delete names. */
const JOBS_NAMED = 10;

/**
 * Deletes a calendar no job names. One that jobs still name is refused (CalendarInUseError, naming
 * up to 10 of them), rather than leaving jobs that name a calendar that is gone: remove it from
 * their exclusions (updateJob) first. A job created at the same moment as the delete may keep its
 * copy of the windows; it is shown in its exclusions and can be removed the same way.
 */
export async function deleteCalendar(
  { calendars, changes }: { calendars: CalendarStore; changes: ChangeRecorder },
  rawName: string,
  now: Date,
): Promise<void> {
  const name = parseCalendarName(rawName, 'name');
  const users = await calendars.jobsNaming(name, JOBS_NAMED + 1);
  if (users.length > 0) throw new CalendarInUseError(name, users.slice(0, JOBS_NAMED), users.length > JOBS_NAMED);
  // Read first for its change record, which keeps the windows the calendar had.
  const before = await calendars.findByName(name);
  if (!before || !(await calendars.delete(name))) throw new NotFoundError('Calendar', name);
  await changes.record(calendarChangeEntry('DELETE_CALENDAR', before, null, now));
}
