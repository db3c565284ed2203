/**
 * Exclusion windows: stretches of time in which a job's occurrences do not run but are recorded
 * SKIPPED with the exclusion's name (docs/using-the-api.md, "Exclusion windows and calendars").
 * The math is in schedule/exclusionWindows.ts, the validation in schedule/parseExclusions.ts.
 */

/**
 * One window of excluded time, in an IANA zone: local dates `from` to `to` (YYYY-MM-DD, both
 * included, midnight to midnight), or windows that open at each occurrence of `cron` (the schedule
 * DST rules of cronOccurrences.ts) and close when the local clock has moved on by `durationSeconds`.
 */
export type ExclusionWindow =
  | { kind: 'DATES'; name: string; timezone: string; from: string; to: string }
  | { kind: 'CRON'; name: string; timezone: string; cron: string; durationSeconds: number };

/** What a job lists: a window of its own, or a tenant's named calendar by name. */
export type Exclusion = ExclusionWindow | { kind: 'CALENDAR'; calendar: string };

/** The fields of JobDoc that exclusions live in (added to the job document only when it has some). */
export interface JobExclusionFields {
  /** The job's exclusions as the client gave them. */
  exclusions?: Exclusion[];
  /**
   * The windows of each calendar `exclusions` names, copied from the tenant's `calendars` when the job
   * is written and whenever the calendar changes (one update of every job naming it), so that the
   * scheduler, nextRunAt and the job's reads need no read of the calendars.
   */
  calendarWindows?: Record<string, ExclusionWindow[]>;
  /** The calendars `exclusions` names: the equality key the calendar's update and delete find jobs by. */
  calendarNames?: string[];
}

/** The windows that apply to a job: its own, then those of the calendars it names (named "window (calendar name)"). */
export function exclusionWindowsOf(job: JobExclusionFields): ExclusionWindow[] {
  const windows: ExclusionWindow[] = [];
  for (const exclusion of job.exclusions ?? []) {
    if (exclusion.kind !== 'CALENDAR') windows.push(exclusion);
    else {
      for (const window of job.calendarWindows?.[exclusion.calendar] ?? []) {
        windows.push({ ...window, name: `${window.name} (calendar ${exclusion.calendar})` });
      }
    }
  }
  return windows;
}

/**
 * The reason excluded occurrences are recorded SKIPPED with: one, or `count` consecutive ones of a
 * job inside one window from `first` to `last` (one record; worded like a budget record's, so that
 * quotas/scheduledBudget.ts recountedReason restates either when a record is cut down).
 */
export function excludedReason(name: string, count = 1, first?: Date, last?: Date): string {
  const why = `excluded by "${name}"`;
  return count > 1 && first && last ? `${count} occurrences from ${first.toISOString()} to ${last.toISOString()} ${why}` : why;
}
