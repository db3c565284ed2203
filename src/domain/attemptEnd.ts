import type { AttemptDoc, AttemptOutcome, ExecutionDoc, ExecutionStatus } from './execution.js';
import type { RetryPolicy } from './job.js';
import { backoffDelayMs } from './backoff.js';

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

/** The error a takeover records on the attempt it finds lost. */
export const CRASHED_ERROR = 'the worker running this attempt disappeared; taken over after the visibility timeout';

/** Who started an attempt whose start never reached MongoDB, as its Redis claim holds it. */
export interface UnwrittenHolder {
  workerId: string;
  startedAt: Date;
}

/** The fields a takeover writes: the lost attempt and the execution after it. */
export type CrashedFields = Pick<ExecutionDoc, 'attempts' | 'attempt' | 'status' | 'nextAttemptAt' | 'finishedAt' | 'error' | 'updatedAt'> &
  Partial<Pick<ExecutionDoc, 'startedAt'>>;

/**
 * How a takeover ends a lost attempt at `now` (its worker disappeared): the attempt CRASHED, and the
 * execution RETRYING due now (no backoff: the failure was the worker's, not the target's), or FAILED
 * when that was its last attempt. The lost attempt is `current`'s RUNNING one or, when its start never
 * reached MongoDB (`unwritten`), the attempt after `current.attempt`, recorded whole. Pure.
 */
export function crashedFields(
  current: Pick<ExecutionDoc, 'attempt' | 'attempts' | 'maxAttempts'>,
  now: Date,
  unwritten: UnwrittenHolder | null,
): CrashedFields {
  const error = CRASHED_ERROR;
  const number = unwritten ? current.attempt + 1 : current.attempt;
  const attempts: AttemptDoc[] = unwritten
    ? [
        ...current.attempts,
        {
          number,
          startedAt: unwritten.startedAt,
          finishedAt: now,
          outcome: 'CRASHED',
          error,
          httpStatus: null,
          workerId: unwritten.workerId,
        },
      ]
    : current.attempts.map((a) => (a.number === number ? { ...a, finishedAt: now, outcome: 'CRASHED' as const, error } : a));
  const last = number >= current.maxAttempts;
  return {
    attempts,
    attempt: number,
    status: last ? 'FAILED' : 'RETRYING',
    nextAttemptAt: last ? null : now,
    finishedAt: last ? now : null,
    error,
    updatedAt: now,
    // The execution's start is its first attempt's.
    ...(unwritten && number === 1 ? { startedAt: unwritten.startedAt } : {}),
  };
}
