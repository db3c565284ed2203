import type { AttemptDoc, AttemptOutcome, ExecutionDoc, ExecutionStatus } from './execution.js';
import type { RetryPolicy } from './job.js';
import { backoffDelayMs } from './backoff.js';
import { isNonRetryableStatus } from './nonRetryableStatuses.js';
import { RETRY_AFTER_STATUSES, parseRetryAfter } from './retryAfter.js';

/** A Location named in a redirect's error is cut to this many characters. */
export const REDIRECT_LOCATION_CHARS = 200;

/** What running an attempt's target gave. */
export interface AttemptResult {
  outcome: AttemptOutcome;
  error: string | null;
  httpStatus: number | null;
  resultJson: string | null;
  /** A failure that a further attempt would only repeat (a refused target): the execution ends FAILED. */
  final?: boolean;
  /** An HTTP answer's `Retry-After` and `Location` headers, as the receiver sent them. */
  retryAfter?: string | null;
  location?: string | null;
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
  /** The receiver's Retry-After (seconds, capped) that the next attempt waits for; null when none, or no attempt follows. */
  retryAfterSeconds: number | null;
}

/**
 * The one place that decides how an attempt ends: SUCCEEDED and CANCELLED end the execution; a
 * FAILED, TIMED_OUT or CRASHED attempt is retried after the policy's backoff while attempts are
 * left (`attempt` of `maxAttempts` started) and the failure is not final, else the execution is FAILED.
 * An HTTP answer is final when it is a redirect (never followed: it would bypass the signature's URL
 * and the private-address guard) or a non-retryable status (domain/nonRetryableStatuses.ts), and the
 * error says why; a 429 or 503 with a usable `Retry-After` holds the next attempt back until then
 * (at most MAX_RETRY_AFTER_SECONDS), when that is later than the backoff. Pure: `now` and `random`
 * (the backoff's jitter) are inputs.
 */
export function decideAttemptEnd(
  result: AttemptResult,
  attempt: { number: number; maxAttempts: number; retryPolicy: RetryPolicy },
  now: Date,
  random: () => number,
): AttemptEndDecision {
  const base = { error: result.error, reason: null, resultJson: result.resultJson, retryAfterSeconds: null };
  switch (result.outcome) {
    case 'SUCCEEDED':
      return { ...base, status: 'SUCCEEDED', nextAttemptAt: null, final: true };
    case 'CANCELLED':
      return { ...base, status: 'CANCELLED', nextAttemptAt: null, final: true, reason: result.error };
    case 'FAILED':
    case 'TIMED_OUT':
    case 'CRASHED': {
      const refused = refusedAnswer(result, attempt.retryPolicy);
      if (refused !== null) return { ...base, error: refused, status: 'FAILED', nextAttemptAt: null, final: true };
      if (result.final || attempt.number >= attempt.maxAttempts) return { ...base, status: 'FAILED', nextAttemptAt: null, final: true };
      const backoffAt = now.getTime() + backoffDelayMs(attempt.retryPolicy, attempt.number, random);
      const retryAfterSeconds =
        result.httpStatus !== null && RETRY_AFTER_STATUSES.includes(result.httpStatus) ? parseRetryAfter(result.retryAfter, now) : null;
      const askedAt = retryAfterSeconds === null ? 0 : now.getTime() + retryAfterSeconds * 1000;
      return { ...base, retryAfterSeconds, status: 'RETRYING', nextAttemptAt: new Date(Math.max(backoffAt, askedAt)), final: false };
    }
  }
}

/** The error of an HTTP answer that no retry may get past (a redirect, a non-retryable status), or null for any other result. */
function refusedAnswer(result: AttemptResult, policy: RetryPolicy): string | null {
  const status = result.httpStatus;
  if (result.outcome !== 'FAILED' || status === null) return null;
  if (status >= 300 && status < 400) {
    const to = result.location ? `to ${shortLocation(result.location)} ` : '(no Location given) ';
    return `HTTP ${status}: redirect ${to}not followed; point the job at the final URL`;
  }
  if (!isNonRetryableStatus(status, policy.nonRetryableStatuses)) return null;
  return policy.nonRetryableStatuses
    ? `HTTP ${status}: not retried (${status} is in the job's retryPolicy.nonRetryableStatuses)`
    : `HTTP ${status}: not retried (${status} is a non-retryable status; set retryPolicy.nonRetryableStatuses to change this)`;
}

/** A redirect's Location as its error names it: without credentials (a `user:password@` part), cut to REDIRECT_LOCATION_CHARS. */
function shortLocation(location: string): string {
  let shown = location;
  if (URL.canParse(location)) {
    const url = new URL(location);
    if (url.username || url.password) {
      url.username = '';
      url.password = '';
      shown = url.href;
    }
  }
  return shown.length > REDIRECT_LOCATION_CHARS ? `${shown.slice(0, REDIRECT_LOCATION_CHARS)}…` : shown;
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
