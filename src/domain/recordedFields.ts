import type { ChangeAction, ChangeEntry } from './change.js';
import type { CalendarDoc } from './calendar.js';
import type { JobDoc } from './job.js';
import { labelsOf } from './labels.js';

/**
 * A job's fields as its change records show them: the definition and the status, named as the API
 * names them (`payload`, not the stored text). The scheduler's and the store's bookkeeping is left
 * out: it changes without anyone changing the job (the cursor, lastRunAt, version, timestamps). A new
 * field of the job is recorded without more ado; one that is bookkeeping goes into BOOKKEEPING.
 */
export function jobFields(job: JobDoc): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(job)) {
    if (BOOKKEEPING.has(key)) continue;
    if (key === 'payloadJson') fields.payload = typeof value === 'string' ? (JSON.parse(value) as unknown) : null;
    else if (key === 'labelPairs') fields.labels = labelsOf(value as string[] | undefined);
    else fields[key] = value;
  }
  return fields;
}

const BOOKKEEPING: ReadonlySet<string> = new Set([
  '_id',
  'tenantId',
  'nameLower',
  'scheduleCursor',
  'rescheduledAt',
  'lastRunAt',
  'idempotencyKey',
  'createdAt',
  'updatedAt',
  'fencingToken',
  'version',
  // Derived from other fields, or copied from the tenant's calendars (a calendar's change is not a change of the job).
  'externalKey',
  'calendarNames',
  'calendarWindows',
]);

/** The change entry of a job created (`before` null), changed, or deleted (`after` null). */
export function jobChangeEntry(
  action: ChangeAction,
  jobId: JobDoc['_id'],
  globalId: string,
  before: JobDoc | null,
  after: JobDoc | null,
  at: Date,
): ChangeEntry {
  return {
    action,
    target: { type: 'JOB', id: globalId },
    jobId,
    before: before && jobFields(before),
    after: after && jobFields(after),
    at,
  };
}

/** The change entry of a calendar created (`before` null), changed, or deleted (`after` null); a calendar is named by its name. */
export function calendarChangeEntry(
  action: ChangeAction,
  before: CalendarDoc | null,
  after: CalendarDoc | null,
  at: Date,
  details: Record<string, unknown> | null = null,
): ChangeEntry {
  const fields = (c: CalendarDoc | null) => c && { name: c.name, description: c.description, windows: c.windows };
  return {
    action,
    target: { type: 'CALENDAR', id: (after ?? before)!.name },
    jobId: null,
    before: fields(before),
    after: fields(after),
    details,
    at,
  };
}
