import { ObjectId } from 'mongodb';
import { MAX_CALENDARS_PER_TENANT, type CalendarDoc } from '../domain/calendar.js';
import { parseCalendarName, parseCalendarWindows, type ExclusionInputFields } from '../domain/schedule/parseExclusions.js';
import { ConflictError, QuotaExceededError } from '../errors/index.js';
import type { CalendarStore } from '../store/calendarStore.js';
import { parseDescription } from './parseJobInput.js';
import type { ChangeRecorder } from '../changes/changeLog.js';
import { calendarChangeEntry } from '../domain/recordedFields.js';

/** CalendarInput as it arrives from GraphQL. */
export interface CalendarInputFields {
  name: string;
  description?: string | null;
  windows: readonly ExclusionInputFields[];
}

/**
 * Defines a named calendar of exclusion windows (dates and cron windows, no calendar of calendars),
 * which the tenant's jobs then name in their exclusions. At most MAX_CALENDARS_PER_TENANT per tenant;
 * a name already taken is CONFLICT (updateCalendar changes one).
 */
export async function createCalendar(
  { calendars, changes }: { calendars: CalendarStore; changes: ChangeRecorder },
  input: CalendarInputFields,
  now: Date,
): Promise<CalendarDoc> {
  const calendar: Omit<CalendarDoc, 'tenantId'> = {
    _id: new ObjectId(),
    name: parseCalendarName(input.name, 'name'),
    description: parseDescription(input.description),
    windows: parseCalendarWindows(input.windows, now),
    createdAt: now,
    updatedAt: now,
  };
  // Counted before the insert: concurrent creates may pass one or two over, which the bound tolerates.
  if ((await calendars.count()) >= MAX_CALENDARS_PER_TENANT) {
    throw new QuotaExceededError(`This tenant may have at most ${MAX_CALENDARS_PER_TENANT} calendars; delete one first`, {
      maxCalendars: MAX_CALENDARS_PER_TENANT,
    });
  }
  const inserted = await calendars.insert(calendar);
  if (!inserted) throw new ConflictError(`A calendar named "${calendar.name}" exists already; change it with updateCalendar`);
  await changes.record(calendarChangeEntry('CREATE_CALENDAR', null, inserted, now));
  return inserted;
}
