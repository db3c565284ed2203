import { newExecution, type ExecutionDoc, type ExecutionTrigger } from '../domain/execution.js';
import type { JobDoc, Schedule } from '../domain/job.js';
import { nextAfter } from '../domain/schedule/nextOccurrences.js';
import { skippedOccurrences } from '../domain/skippedOccurrences.js';
import { overBudgetReason, recountedReason } from '../quotas/scheduledBudget.js';
import { skippedOnInsert } from '../transitions/skipOccurrences.js';

/*
 * Occurrences past the tenant's scheduled budget are recorded SKIPPED in records of many: one
 * document per job, pass and run of consecutive occurrences, instead of one per occurrence (a tenant
 * at its job quota with every-second jobs wrote hundreds of documents a second). Pure.
 */

/** Occurrences one SKIPPED record stands for: consecutive ones of the job's schedule, of one trigger. */
export interface SkipGroup {
  trigger: ExecutionTrigger;
  first: Date;
  last: Date;
  count: number;
}

/**
 * How much later than a pass's own reach ahead a job's rescheduledAt is taken to cover: a pass that
 * read the job before the change may have taken its `now` up to this much after the change's `now`
 * (a change request slow to land).
 */
export const RESCHEDULE_MARGIN_MS = 30_000;

/**
 * The last instant up to which a pass records the job's budget skips one document each, or null
 * when it groups them all. After a pause, resume or schedule change (rescheduledAt), passes over
 * the job's earlier state may have left executions of single occurrences ahead of the new cursor
 * (cancelled, revived, or of a pass that lost the race); a record of many must not stand for one
 * of those too, and a record of one collides with it by its occurrence key instead. Those passes
 * reached no further than their `now` plus their reach ahead (the sweep's is the same for a job in
 * every pass; the API's is shorter), their `now` no later than the change plus the margin.
 */
export function singlyUntil(job: Pick<JobDoc, 'rescheduledAt'>, now: Date, horizon: Date): Date | null {
  if (!job.rescheduledAt) return null;
  return new Date(job.rescheduledAt.getTime() + Math.max(0, horizon.getTime() - now.getTime()) + RESCHEDULE_MARGIN_MS);
}

/**
 * Groups a job's occurrences skipped past the budget (in nominal order) into records: a record goes
 * on while the next occurrence is its schedule's next one after the last (none jumped over) and has
 * the same trigger; an occurrence at or before `singly` is a record of its own.
 */
export function groupSkips(
  schedule: Schedule,
  skipped: readonly { nominal: Date; trigger: ExecutionTrigger }[],
  singly: Date | null,
): SkipGroup[] {
  const alone = (at: Date) => singly !== null && at.getTime() <= singly.getTime();
  const groups: SkipGroup[] = [];
  for (const { nominal, trigger } of skipped) {
    const last = groups.at(-1);
    const joins =
      last !== undefined &&
      !alone(last.first) &&
      !alone(nominal) &&
      last.trigger === trigger &&
      nextAfter(schedule, last.last)?.getTime() === nominal.getTime();
    if (joins) {
      last.last = nominal;
      last.count++;
    } else groups.push({ trigger, first: nominal, last: nominal, count: 1 });
  }
  return groups;
}

/** The SKIPPED record of `group`, keyed by its first occurrence (`occurrenceKey` of the job and that instant). */
export function skipRecord(
  job: Pick<JobDoc, '_id' | 'tenantId' | 'workload' | 'retryPolicy'>,
  group: SkipGroup,
  occurrenceKey: string,
  perMinute: number,
  fencingToken: number,
  now: Date,
): ExecutionDoc {
  return groupRecord(job, group, occurrenceKey, overBudgetReason(perMinute, group.count, group.first, group.last), fencingToken, now);
}

/** A SKIPPED record of `group` with `reason` (a budget's, an exclusion's: exclusionSkips.ts), keyed like skipRecord. */
export function groupRecord(
  job: Pick<JobDoc, '_id' | 'tenantId' | 'workload' | 'retryPolicy'>,
  group: SkipGroup,
  occurrenceKey: string,
  reason: string,
  fencingToken: number,
  now: Date,
): ExecutionDoc {
  const doc = newExecution(
    {
      tenantId: job.tenantId,
      jobId: job._id,
      occurrenceKey,
      trigger: group.trigger,
      workload: job.workload,
      scheduledFor: group.first,
      maxAttempts: job.retryPolicy.maxAttempts,
      fencingToken,
    },
    now,
  );
  return {
    ...skippedOnInsert(doc, reason, now),
    skippedCount: group.count,
    skippedUntil: group.last,
  };
}

/** What a record cut down becomes: fewer occurrences, or none (the record goes). */
export type SkipTrim = { skippedCount: number; skippedUntil: Date; reason: string } | 'gone';

/**
 * `record` (written under `schedule`) cut to its occurrences before `before`, or null when it has
 * none at or after it. A pause, resume or schedule change cuts the records of the occurrences it
 * takes back, which the new state materialises again (or not at all).
 */
export function trimSkip(
  schedule: Schedule,
  record: Pick<ExecutionDoc, 'scheduledFor' | 'skippedCount' | 'skippedUntil' | 'reason'>,
  before: Date,
): SkipTrim | null {
  if (!record.skippedCount || !record.skippedUntil || record.skippedUntil.getTime() < before.getTime()) return null;
  const kept = skippedOccurrences(schedule, record).filter((at) => at.getTime() < before.getTime());
  if (kept.length === 0) return 'gone';
  const last = kept[kept.length - 1];
  return {
    skippedCount: kept.length,
    skippedUntil: last,
    reason: recountedReason(record.reason ?? '', kept.length, record.scheduledFor, last),
  };
}
