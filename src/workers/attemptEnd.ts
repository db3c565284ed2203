import type { AttemptOutcome, ExecutionStatus } from '../domain/execution.js';
import type { RetryPolicy } from '../domain/job.js';
import { backoffDelayMs } from '../domain/backoff.js';

/** What running an attempt's target gave. */
export interface AttemptResult {
  outcome: AttemptOutcome;
  error: string | null;
  httpStatus: number | null;
  resultJson: string | null;
  /** A failure that a further attempt would only repeat (a refused target): the execution ends FAILED. */
  final?: boolean;
}

/** How the execution goes on after an attempt: the fields its end writes. */
export interface AttemptEndDecision {
  status: Extract<ExecutionStatus, 'SUCCEEDED' | 'FAILED' | 'CANCELLED' | 'RETRYING'>;
  /** When the next attempt is due (RETRYING only). */
  nextAttemptAt: Date | null;
  /** True when the execution is over (no attempt follows). */
  final: boolean;
  error: string | null;
  /** Why it was cancelled (CANCELLED only). */
  reason: string | null;
  resultJson: string | null;
}

/**
 * The one place that decides how an attempt ends: SUCCEEDED and CANCELLED end the execution; a
 * FAILED, TIMED_OUT or CRASHED attempt is retried after the policy's backoff while attempts are
 * left (`attempt` of `maxAttempts` started) and the failure is not final, else the execution is FAILED. Pure: `now` and
 * `random` (the backoff's jitter) are inputs.
 */
export function decideAttemptEnd(
  result: AttemptResult,
  attempt: { number: number; maxAttempts: number; retryPolicy: RetryPolicy },
  now: Date,
  random: () => number,
): AttemptEndDecision {
  const base = { error: result.error, reason: null, resultJson: result.resultJson };
  switch (result.outcome) {
    case 'SUCCEEDED':
      return { ...base, status: 'SUCCEEDED', nextAttemptAt: null, final: true };
    case 'CANCELLED':
      return { ...base, status: 'CANCELLED', nextAttemptAt: null, final: true, reason: result.error };
    case 'FAILED':
    case 'TIMED_OUT':
    case 'CRASHED':
      if (!result.final && attempt.number < attempt.maxAttempts) {
        const nextAttemptAt = new Date(now.getTime() + backoffDelayMs(attempt.retryPolicy, attempt.number, random));
        return { ...base, status: 'RETRYING', nextAttemptAt, final: false };
      }
      return { ...base, status: 'FAILED', nextAttemptAt: null, final: true };
  }
}
