import { QuotaExceededError } from '../errors/index.js';
import { errorMessage, type Logger } from '../logger.js';

/** What the check reads of the tenants' waiting entries (queue/waitingIndex.ts). */
export interface WaitingCounts {
  count(tenantId: string): Promise<number>;
  /** Drops what is counted but no longer in the queue, until the count is below `cap` (at most once per `everyMs`); the count after. */
  trim(tenantId: string, cap: number, everyMs: number): Promise<number>;
}

/** How often a tenant at its cap has its count checked against the queue before a refusal. */
export const TRIM_EVERY_MS = 10_000;

/**
 * Refuses one more waiting execution (`triggerJob`, `retryExecution`) to a tenant that has
 * `maxWaitingExecutions` waiting already: each waits in the Redis every tenant shares. The count is
 * read from the waiting index (one command a workload), and checked against the queue before a
 * refusal, since it may run high. Scheduled occurrences count too but are never refused here (a
 * schedule must not lose occurrences; its own budget, maxExecutionsPerMinute, bounds them). Requests
 * checked at the same moment may all pass: the cap holds to within the tenant's requests in flight.
 * With Redis unreachable nothing is checked (a warning, as for the rate limits): the enqueue fails
 * then too, and reconcile enqueues the execution once Redis is back.
 */
export async function checkWaitingQuota(
  waiting: WaitingCounts,
  tenantId: string,
  maxWaitingExecutions: number,
  logger: Logger,
): Promise<void> {
  const count = await countWaiting(waiting, tenantId, maxWaitingExecutions, logger);
  if (count !== null && count >= maxWaitingExecutions) {
    throw new QuotaExceededError(
      `This tenant may have at most ${maxWaitingExecutions} executions waiting to run (maxWaitingExecutions) and has ${count}; ` +
        'wait for some to start, or cancel some',
      { maxWaitingExecutions, waitingExecutions: count },
    );
  }
}

/**
 * How many more executions the tenant may have waiting (maxWaitingExecutions less those waiting, at
 * least 0), counted as checkWaitingQuota counts: a bulk retry requeues at most this many before it
 * waits for room. Unbounded with Redis unreachable (nothing is checked then, as above).
 */
export async function waitingRoom(waiting: WaitingCounts, tenantId: string, maxWaitingExecutions: number, logger: Logger): Promise<number> {
  const count = await countWaiting(waiting, tenantId, maxWaitingExecutions, logger);
  return count === null ? Number.POSITIVE_INFINITY : Math.max(0, maxWaitingExecutions - count);
}

/** The tenant's waiting executions, checked against the queue when at `cap`; null (logged) with Redis unreachable. */
async function countWaiting(waiting: WaitingCounts, tenantId: string, cap: number, logger: Logger): Promise<number | null> {
  try {
    const count = await waiting.count(tenantId);
    return count >= cap ? await waiting.trim(tenantId, cap, TRIM_EVERY_MS) : count;
  } catch (error) {
    logger.warn('waiting executions not counted: Redis unreachable', { tenantId, error: errorMessage(error) });
    return null;
  }
}
