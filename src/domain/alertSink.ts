import type { ExecutionStatus, ExecutionTrigger } from './execution.js';

/** An execution's end as the transitions tell the alert evaluator. */
export interface AlertableEnd {
  tenantId: string;
  jobId: string;
  executionId: string;
  status: Extract<ExecutionStatus, 'SUCCEEDED' | 'FAILED' | 'SKIPPED'>;
  /** A SKIPPED execution's reason (misfire, budget, overlap). */
  reason: string | null;
  at: Date;
}

/**
 * Where the transitions report the ends alert rules watch (SUCCEEDED, FAILED, SKIPPED). Passed in as
 * a dependency (the composition root gives the alert evaluator); never throws and never makes the
 * execution's path wait: an alert that could not be evaluated is logged, the execution stands.
 */
export interface AlertSink {
  ended(end: AlertableEnd): void;
}

/**
 * Tells `sink` (when there is one) about `ends`, keeping only those alert rules watch. A BACKFILL
 * execution is left out: it replays the past, so its failure is not the job failing now, and its
 * success must not end (RECOVERED) a failing streak of the live occurrences.
 */
export function reportEnds(
  sink: AlertSink | undefined,
  ends: readonly (Omit<AlertableEnd, 'status'> & { status: ExecutionStatus; trigger: ExecutionTrigger | undefined })[],
): void {
  if (!sink) return;
  for (const { trigger, ...end } of ends) {
    if (trigger === 'BACKFILL') continue;
    if (end.status === 'SUCCEEDED' || end.status === 'FAILED' || end.status === 'SKIPPED') sink.ended({ ...end, status: end.status });
  }
}
