import type { ExecutionDoc } from './execution.js';
import type { Schedule } from './job.js';
import { nextAfter } from './schedule/nextOccurrences.js';

/**
 * The nominal instants of the occurrences a SKIPPED budget record stands for (`skippedCount`
 * consecutive occurrences of `schedule` from `scheduledFor`), given the schedule its job had when
 * the record was written; fewer when the schedule ends first (then the record does not match it).
 * A document without `skippedCount` is an execution of one occurrence, named by its occurrence key.
 */
export function skippedOccurrences(schedule: Schedule, record: Pick<ExecutionDoc, 'scheduledFor' | 'skippedCount'>): Date[] {
  const instants: Date[] = [];
  for (let at: Date | null = record.scheduledFor; at && instants.length < (record.skippedCount ?? 0); at = nextAfter(schedule, at)) {
    instants.push(at);
  }
  return instants;
}
