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
  let count: number;
  try {
    count = await waiting.count(tenantId);
    if (count >= maxWaitingExecutions) count = await waiting.trim(tenantId, maxWaitingExecutions, TRIM_EVERY_MS);
  } catch (error) {
    logger.warn('waiting executions not counted: Redis unreachable', { tenantId, error: errorMessage(error) });
    return;
  }
  if (count >= maxWaitingExecutions) {
    throw new QuotaExceededError(
      `This tenant may have at most ${maxWaitingExecutions} executions waiting to run (maxWaitingExecutions) and has ${count}; ` +
        'wait for some to start, or cancel some',
      { maxWaitingExecutions, waitingExecutions: count },
    );
  }
}
