import type { RetryPolicy } from './job.js';
import { BadUserInputError } from '../errors/index.js';
import { MAX_NON_RETRYABLE_STATUSES, STATUS_RANGE } from './nonRetryableStatuses.js';

/** The retry policy of a job created without one (schema defaults). */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  initialBackoffSeconds: 1,
  maxBackoffSeconds: 300,
  backoffMultiplier: 2,
};

const MAX_ATTEMPTS = 20;
const MAX_BACKOFF_SECONDS = 86_400;
const MAX_MULTIPLIER = 10;

/**
 * The wait before the retry that follows failed attempt number `failedAttempt` (1 = the first attempt),
 * in whole milliseconds: exponential backoff with jitter. The ceiling grows as
 * `initialBackoffSeconds * backoffMultiplier^(failedAttempt - 1)`, capped at `maxBackoffSeconds`, and the
 * delay is uniformly random between `initialBackoffSeconds` and that ceiling (so never below the initial
 * backoff and never above the maximum). `random` returns a number in [0, 1), like Math.random.
 */
export function backoffDelayMs(policy: RetryPolicy, failedAttempt: number, random: () => number): number {
  const exponent = Math.max(0, Math.floor(failedAttempt) - 1);
  const ceilingSeconds = Math.min(policy.maxBackoffSeconds, policy.initialBackoffSeconds * Math.pow(policy.backoffMultiplier, exponent));
  const lowMs = Math.round(policy.initialBackoffSeconds * 1000);
  const highMs = Math.max(lowMs, Math.round(ceilingSeconds * 1000));
  const delayMs = lowMs + Math.floor(random() * (highMs - lowMs + 1));
  return Math.min(highMs, Math.max(lowMs, delayMs));
}

type NumericField = 'maxAttempts' | 'initialBackoffSeconds' | 'maxBackoffSeconds' | 'backoffMultiplier';

/** A RetryPolicyInput as the API gives it: any field may be omitted (undefined) or null. */
export type RetryPolicyInput = Partial<Record<NumericField, number | null | undefined>> & {
  nonRetryableStatuses?: readonly number[] | null;
};

function given<T>(value: T | null | undefined): value is T {
  return value !== null && value !== undefined;
}

/**
 * Validates a RetryPolicyInput. Omitted (null or undefined) fields keep their value in `base` (the defaults
 * for a new job, the current policy for an update). Throws BadUserInputError naming the field, e.g.
 * `retryPolicy.maxAttempts`.
 */
export function parseRetryPolicy(input: RetryPolicyInput | null | undefined, base: RetryPolicy = DEFAULT_RETRY_POLICY): RetryPolicy {
  const raw = input ?? {};
  const policy: RetryPolicy = {
    maxAttempts: given(raw.maxAttempts) ? raw.maxAttempts : base.maxAttempts,
    initialBackoffSeconds: given(raw.initialBackoffSeconds) ? raw.initialBackoffSeconds : base.initialBackoffSeconds,
    maxBackoffSeconds: given(raw.maxBackoffSeconds) ? raw.maxBackoffSeconds : base.maxBackoffSeconds,
    backoffMultiplier: given(raw.backoffMultiplier) ? raw.backoffMultiplier : base.backoffMultiplier,
  };
  const statuses = given(raw.nonRetryableStatuses) ? parseStatuses(raw.nonRetryableStatuses) : base.nonRetryableStatuses;
  // Stored only when set, so jobs on the default rule keep the policy they always had.
  if (statuses) policy.nonRetryableStatuses = [...statuses];

  const { maxAttempts, initialBackoffSeconds, maxBackoffSeconds, backoffMultiplier } = policy;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS) {
    throw new BadUserInputError(
      `retryPolicy.maxAttempts must be a whole number from 1 to ${MAX_ATTEMPTS} (attempts in total, the first included); got ${maxAttempts}`,
      'retryPolicy.maxAttempts',
    );
  }
  if (!Number.isFinite(initialBackoffSeconds) || initialBackoffSeconds <= 0) {
    throw new BadUserInputError(
      `retryPolicy.initialBackoffSeconds must be a number of seconds greater than 0; got ${initialBackoffSeconds}`,
      'retryPolicy.initialBackoffSeconds',
    );
  }
  if (!Number.isFinite(maxBackoffSeconds) || maxBackoffSeconds <= 0 || maxBackoffSeconds > MAX_BACKOFF_SECONDS) {
    throw new BadUserInputError(
      `retryPolicy.maxBackoffSeconds must be greater than 0 and at most ${MAX_BACKOFF_SECONDS} (one day); got ${maxBackoffSeconds}`,
      'retryPolicy.maxBackoffSeconds',
    );
  }
  if (initialBackoffSeconds > maxBackoffSeconds) {
    // Blame the field the caller set; when both were set, the initial backoff.
    const field =
      given(raw.initialBackoffSeconds) || !given(raw.maxBackoffSeconds)
        ? 'retryPolicy.initialBackoffSeconds'
        : 'retryPolicy.maxBackoffSeconds';
    throw new BadUserInputError(
      `retryPolicy.initialBackoffSeconds (${initialBackoffSeconds}) must not exceed retryPolicy.maxBackoffSeconds (${maxBackoffSeconds}); lower the first or raise the second`,
      field,
    );
  }
  if (!Number.isFinite(backoffMultiplier) || backoffMultiplier < 1 || backoffMultiplier > MAX_MULTIPLIER) {
    throw new BadUserInputError(
      `retryPolicy.backoffMultiplier must be from 1 (constant backoff) to ${MAX_MULTIPLIER}; got ${backoffMultiplier}`,
      'retryPolicy.backoffMultiplier',
    );
  }
  return policy;
}

/** A job's own list of non-retryable statuses, deduplicated and sorted. */
function parseStatuses(statuses: readonly number[]): number[] {
  const field = 'retryPolicy.nonRetryableStatuses';
  if (statuses.length > MAX_NON_RETRYABLE_STATUSES) {
    throw new BadUserInputError(`${field} may list at most ${MAX_NON_RETRYABLE_STATUSES} statuses; got ${statuses.length}`, field);
  }
  const bad = statuses.find((s) => !Number.isInteger(s) || s < STATUS_RANGE.min || s > STATUS_RANGE.max);
  if (bad !== undefined) {
    throw new BadUserInputError(
      `${field} must hold HTTP statuses, whole numbers from ${STATUS_RANGE.min} to ${STATUS_RANGE.max}; got ${bad}`,
      field,
    );
  }
  return [...new Set(statuses)].sort((a, b) => a - b);
}
