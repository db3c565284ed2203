import type { ObjectId } from 'mongodb';
import type { BulkItem, BulkOperationDoc } from '../domain/bulkOperation.js';
import type { JobDoc } from '../domain/job.js';
import type { CancelSignals } from '../events/cancelSignals.js';
import type { JobDeps } from '../jobs/jobDeps.js';
import { waitingRoom } from '../quotas/waitingQuota.js';
import { enqueueRequeued, requeueExecution } from '../transitions/requeueExecution.js';
import { eachItem, type BulkItemResult } from './bulkItems.js';

/** What a bulk retry's batch needs: the operation's tenant's stores and the process-wide queue, events and quotas. */
export type BulkRetryDeps = Pick<JobDeps, 'jobs' | 'executions' | 'queues' | 'events' | 'logger' | 'quotas' | 'waiting'> & {
  cancels: Pick<CancelSignals, 'clear'>;
};

/**
 * Retries a batch of a bulk retry's items as retryExecution does, each a compare-and-set on the
 * status and attempt of the snapshot (so an execution retried or run since is left alone) that
 * marks the round as this operation's. Only as many as the tenant has waiting room for
 * (maxWaitingExecutions): none when it is full, and the runner waits for room. An item whose
 * compare-and-set finds it changed counts as done when the change is this operation's own (a
 * batch repeated after a crash), failed otherwise.
 */
export async function retryBatch(
  deps: BulkRetryDeps,
  operation: BulkOperationDoc,
  items: readonly BulkItem[],
  now: Date,
): Promise<BulkItemResult[]> {
  const { maxWaitingExecutions } = await deps.quotas.of(operation.tenantId);
  const room = await waitingRoom(deps.waiting, operation.tenantId, maxWaitingExecutions, deps.logger);
  const batch = items.slice(0, room);
  const jobs = new Map<string, Promise<JobDoc | null>>();
  const jobOf = (id: ObjectId) => {
    const key = id.toHexString();
    if (!jobs.has(key)) jobs.set(key, deps.jobs.findById(id));
    return jobs.get(key)!;
  };
  return eachItem(batch, async (item) => {
    const job = await jobOf(item.jobId);
    if (!job) return { ok: false, message: 'its job was deleted; it cannot run again' };
    // A cancel request that never met a running attempt must not cancel the new round.
    await deps.cancels.clear(item._id.toHexString());
    if (await requeueExecution(deps, item, job, now, operation._id)) return { ok: true };
    const current = await deps.executions.findById(item._id);
    if (current?.bulkOperationId?.equals(operation._id)) {
      // Requeued by this operation before a crash, maybe without its queue entry: added now, so it
      // need not wait for reconcile (one already queued stays as it is).
      if (current.status === 'QUEUED') await enqueueRequeued(deps, current, job, now);
      return { ok: true };
    }
    return { ok: false, message: current ? `it changed since the operation started (now ${current.status})` : 'it was deleted' };
  });
}
