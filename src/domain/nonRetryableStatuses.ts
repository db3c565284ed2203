/**
 * Client errors a retry may still get past, which the default rule retries: 408 Request Timeout,
 * 425 Too Early and 429 Too Many Requests. Every other 4xx says the request itself is wrong, and the
 * same request sent again gets the same answer.
 */
export const RETRIED_CLIENT_ERRORS: readonly number[] = [408, 425, 429];

/** The most statuses a job's `retryPolicy.nonRetryableStatuses` may list. */
export const MAX_NON_RETRYABLE_STATUSES = 50;

/** The lowest and highest status a list may hold (the three-digit codes of RFC 9110). */
export const STATUS_RANGE = { min: 100, max: 599 } as const;

/**
 * Whether a failed attempt's HTTP `status` ends the execution at once: when `listed` (the job's
 * `retryPolicy.nonRetryableStatuses`) is given, whether it holds the status (an empty list retries
 * every status); else the default rule, every 4xx but RETRIED_CLIENT_ERRORS. Redirects are decided
 * apart (domain/attemptEnd.ts). Pure.
 */
export function isNonRetryableStatus(status: number, listed: readonly number[] | null | undefined): boolean {
  if (listed) return listed.includes(status);
  return status >= 400 && status < 500 && !RETRIED_CLIENT_ERRORS.includes(status);
}
