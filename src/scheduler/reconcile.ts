import type { ExecutionQueues } from '../queue/executionQueues.js';
import { queueEntry } from '../queue/queueEntry.js';
import type { SchedulerStore } from '../store/schedulerStore.js';

export interface ReconcileOptions {
  /** How long past its time an execution may wait before it counts as lost by the queue (config RECONCILE_GRACE_MS). */
  graceMs: number;
  /** Executions handled per pass. Default 1000. */
  limit?: number;
}

/**
 * The leader's `reconcile` system job (docs/architecture.md, "The life of an occurrence", step 7): re-enqueues executions stuck in
 * SCHEDULED, QUEUED or RETRYING past their time plus a grace period, and hands RUNNING ones past
 * their attempt's deadline to a worker as a takeover (the lost attempt is recorded CRASHED). A
 * waiting one is enqueued under its usual entry id: when Redis lost the entry (or a crash came
 * between the MongoDB write and the enqueue) this adds it again, and when the entry is still there
 * it will be delivered anyway; a delivery too many is dropped by the worker's claims.
 */
export async function reconcile(
  deps: { store: Pick<SchedulerStore, 'findStranded'>; queues: Pick<ExecutionQueues, 'enqueue'> },
  now: Date,
  options: ReconcileOptions,
): Promise<{ requeued: number; takeovers: number }> {
  const stranded = await deps.store.findStranded(new Date(now.getTime() - options.graceMs), options.limit ?? 1000);
  await deps.queues.enqueue(stranded.map((e) => queueEntry(e, now, { kind: e.status === 'RUNNING' ? 'takeover' : 'waiting' })));
  return { requeued: stranded.length, takeovers: stranded.filter((e) => e.status === 'RUNNING').length };
}
