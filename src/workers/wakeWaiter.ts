import { WORKLOADS, type Workload } from '../domain/job.js';
import { errorMessage, type Logger } from '../logger.js';
import type { ConcurrencyLimiter } from '../quotas/concurrencyLimiter.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';

/** How many waiters a freed slot tries to wake before leaving it to the waiters' timed tries. */
const WAKE_TRIES = 3;

/** What a delivery refused a tenant slot leaves in the waiting set: its workload (so its queue) and its queue entry's id. */
export function waiterOf(workload: Workload, entryId: string): string {
  return `${workload}/${entryId}`;
}

/**
 * Gives back an execution's tenant slot and wakes the tenant's oldest waiter: its delayed queue entry
 * is made due now, so a freed slot is taken at once instead of at some waiter's next timed try
 * (tenantWait.ts spaces those out for that reason). A waiter that cannot be woken (running, or gone)
 * passes the wake to the next. Any worker process can wake any waiter: both live in Redis.
 * A failed wake is only logged: the waiters' timed tries still come.
 */
export async function releaseTenantSlot(
  deps: { tenantSlots: Pick<ConcurrencyLimiter, 'release'>; queues: Pick<ExecutionQueues, 'promote'>; logger: Logger },
  tenantId: string,
  executionId: string,
): Promise<void> {
  let waiter = await deps.tenantSlots.release(tenantId, executionId);
  try {
    for (let tries = 0; waiter !== null && tries < WAKE_TRIES; tries++) {
      const [workload, entryId] = splitWaiter(waiter);
      if (workload && (await deps.queues.promote(workload, tenantId, entryId))) return;
      waiter = await deps.tenantSlots.release(tenantId, null);
    }
  } catch (error) {
    deps.logger.warn('could not wake an execution waiting for its tenant slot', { tenantId, error: errorMessage(error) });
  }
}

function splitWaiter(waiter: string): [Workload | null, string] {
  const slash = waiter.indexOf('/');
  const workload = WORKLOADS.find((w) => w === waiter.slice(0, slash)) ?? null;
  return [workload, waiter.slice(slash + 1)];
}
