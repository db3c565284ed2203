import { WORKLOADS, type Workload } from '../domain/job.js';
import { errorMessage, type Logger } from '../logger.js';
import type { ConcurrencyLimiter } from '../quotas/concurrencyLimiter.js';
import type { FlowHold, FlowLimiter, FlowLimits } from '../quotas/flowLimiter.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';

/** How many waiters a freed slot tries to wake before leaving it to the waiters' timed tries. */
const WAKE_TRIES = 3;

/** What a delivery refused a tenant slot or a flow-control key leaves in a waiting set: its workload (so its queue) and its queue entry's id. */
export function waiterOf(workload: Workload, entryId: string): string {
  return `${workload}/${entryId}`;
}

interface WakeDeps {
  queues: Pick<ExecutionQueues, 'promote'>;
  logger: Logger;
}

/**
 * Gives back an execution's tenant slot and wakes the tenant's oldest waiter: its delayed queue entry
 * is made due now, so a freed slot is taken at once instead of at some waiter's next timed try
 * (tenantWait.ts spaces those out for that reason). A waiter that cannot be woken (running, or gone)
 * passes the wake to the next. Any worker process can wake any waiter: both live in Redis.
 * A failed wake is only logged: the waiters' timed tries still come.
 */
export async function releaseTenantSlot(
  deps: WakeDeps & { tenantSlots: Pick<ConcurrencyLimiter, 'release'> },
  tenantId: string,
  executionId: string,
): Promise<void> {
  await wake(deps, tenantId, 'its tenant slot', (first) => deps.tenantSlots.release(tenantId, first ? executionId : null));
}

/** Gives back an execution's place on a flow-control key (and its start, if its attempt never `began`) and wakes the key's oldest waiter, as releaseTenantSlot. */
export async function releaseFlowPlace(
  deps: WakeDeps & { flow: Pick<FlowLimiter, 'release'> },
  tenantId: string,
  limits: FlowLimits,
  hold: Pick<FlowHold, 'executionId' | 'startId'>,
  began: boolean,
): Promise<void> {
  await wake(deps, tenantId, 'its flow control key', (first) =>
    deps.flow.release(tenantId, limits, first ? hold : null, { began, wake: true }),
  );
}

/**
 * Gives back a place this delivery took on a flow-control key without waking anyone: used when the
 * delivery goes on to wait for its tenant's slot (the key's waiters would find it as full) or fails.
 */
export async function returnFlowPlaceUnwoken(
  deps: { flow: Pick<FlowLimiter, 'release'> },
  tenantId: string,
  place: { taken: 'new' | 'held'; hold: FlowHold },
): Promise<void> {
  if (place.taken === 'new') await deps.flow.release(tenantId, place.hold.limits, place.hold, { began: false, wake: false });
}

/** Releases with `next(true)`, then wakes the waiter it hands out; `next(false)` hands out the next one when a waiter cannot be woken. */
async function wake(deps: WakeDeps, tenantId: string, what: string, next: (first: boolean) => Promise<string | null>): Promise<void> {
  let waiter = await next(true);
  try {
    for (let tries = 0; waiter !== null && tries < WAKE_TRIES; tries++) {
      const [workload, entryId] = splitWaiter(waiter);
      if (workload && (await deps.queues.promote(workload, tenantId, entryId))) return;
      waiter = await next(false);
    }
  } catch (error) {
    deps.logger.warn(`could not wake an execution waiting for ${what}`, { tenantId, error: errorMessage(error) });
  }
}

function splitWaiter(waiter: string): [Workload | null, string] {
  const slash = waiter.indexOf('/');
  const workload = WORKLOADS.find((w) => w === waiter.slice(0, slash)) ?? null;
  return [workload, waiter.slice(slash + 1)];
}
