import type { ExecutionDoc } from '../domain/execution.js';
import { excludedReason } from '../domain/exclusion.js';
import type { JobDoc } from '../domain/job.js';
import { groupRecord, groupSkips } from './budgetSkips.js';
import { occurrenceKey, type PlannedOccurrence } from './planOccurrences.js';

/*
 * Occurrences inside an exclusion window are recorded SKIPPED the way budget skips are: one record
 * per job, pass, window and run of consecutive occurrences (`skippedCount`), its reason naming the
 * window, instead of one per occurrence (an every-second job excluded for a weekend would otherwise
 * write 172,800 documents; this way a pass writes one per window it reaches, and the audit still
 * accounts for each occurrence). The record goes through the same replay (a pass repeated from the
 * same cursor writes the same records), trim (a reschedule cuts it) and keys as a budget record.
 */

/**
 * The SKIPPED records of a job's excluded occurrences (in nominal order, each with `excludedBy`),
 * grouped by window; an occurrence at or before `singly` (budgetSkips.ts singlyUntil) is a record of its own.
 */
export function exclusionRecords(
  job: Pick<JobDoc, '_id' | 'tenantId' | 'workload' | 'retryPolicy' | 'schedule'>,
  excluded: readonly PlannedOccurrence[],
  singly: Date | null,
  fencingToken: number,
  now: Date,
): { nominal: Date; doc: ExecutionDoc }[] {
  const byWindow = new Map<string, PlannedOccurrence[]>();
  for (const o of excluded) {
    const name = o.excludedBy ?? '';
    byWindow.set(name, [...(byWindow.get(name) ?? []), o]);
  }
  const records: { nominal: Date; doc: ExecutionDoc }[] = [];
  for (const [name, occurrences] of byWindow) {
    for (const group of groupSkips(job.schedule, occurrences, singly)) {
      const reason = excludedReason(name, group.count, group.first, group.last);
      const doc = groupRecord(job, group, occurrenceKey(job._id, group.first), reason, fencingToken, now);
      records.push({ nominal: group.first, doc: { ...doc, excluded: true } });
    }
  }
  return records;
}
