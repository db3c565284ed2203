import type { ExecutionQueues } from '../queue/executionQueues.js';
import { queueEntry } from '../queue/queueEntry.js';
import type { SchedulerStore } from '../store/schedulerStore.js';

/**
 * Enqueues again every execution waiting for the queue and due before `horizon`, each at its own
 * time. A new leader runs it once: the lease may have moved because Redis lost its data, and the
 * queue entries of everything materialised ahead went with it; reconcile would only find them
 * after their time plus its grace. Enqueueing is idempotent by entry id, so entries still there
 * are left as they are.
 */
export async function requeueWaiting(
  deps: { store: Pick<SchedulerStore, 'findWaiting'>; queues: Pick<ExecutionQueues, 'enqueue'> },
  horizon: Date,
  limit = 5000,
): Promise<{ requeued: number }> {
  const waiting = await deps.store.findWaiting(horizon, limit);
  await deps.queues.enqueue(
    waiting.map((e) => queueEntry(e, e.status === 'RETRYING' && e.nextAttemptAt ? e.nextAttemptAt : e.scheduledFor)),
  );
  return { requeued: waiting.length };
}
