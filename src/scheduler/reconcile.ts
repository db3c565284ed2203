import type { ExecutionQueues } from '../queue/executionQueues.js';
import type { SchedulerStore } from '../store/schedulerStore.js';

export interface ReconcileOptions {
  /** How long past its time an execution may wait before it counts as lost by the queue. Default 60 s. */
  graceMs?: number;
  /** Executions handled per pass. Default 1000. */
  limit?: number;
}

/**
 * The leader's `reconcile` system job (DESIGN.md step 7): re-enqueues executions stuck in
 * SCHEDULED, QUEUED or RETRYING past their time plus a grace period, and hands RUNNING ones past
 * their attempt's deadline to a worker as a takeover (the lost attempt is recorded CRASHED). Waiting
 * ones get an entry of their own (one per minute at most), so it does not matter whether the old
 * entry is gone (Redis lost it, or a crash came between the MongoDB write and the enqueue) or stuck;
 * a delivery too many is dropped by the worker's claims.
 */
export async function reconcile(
  deps: { store: SchedulerStore; queues: ExecutionQueues },
  now: Date,
  options: ReconcileOptions = {},
): Promise<{ requeued: number }> {
  const stranded = await deps.store.findStranded(new Date(now.getTime() - (options.graceMs ?? 60_000)), options.limit ?? 1000);
  await deps.queues.enqueue(
    stranded.map((e) => ({
      executionId: e._id.toHexString(),
      tenantId: e.tenantId,
      workload: e.workload,
      dueAt: now,
      round: e.status === 'RETRYING' ? e.attempt : 0,
      takeoverOf: e.status === 'RUNNING' ? e.attempt : undefined,
      // A chaos run found an execution QUEUED for good: its entry id was held by an entry Redis
      // never delivered (after a restart without data), so each re-enqueue was a no-op.
      healRound: e.status === 'RUNNING' ? undefined : Math.floor(now.getTime() / 60_000),
    })),
  );
  return { requeued: stranded.length };
}
