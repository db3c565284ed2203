import { newExecution, type ExecutionDoc } from '../domain/execution.js';
import type { JobDoc } from '../domain/job.js';
import { occurrenceKey } from '../domain/occurrenceKey.js';
import { errorMessage, type Logger } from '../logger.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';
import { queueEntry } from '../queue/queueEntry.js';
import type { ExecutionStore } from '../store/executionStore.js';
import { publishInserted, queuedOnInsert } from './queueInserted.js';
import type { StatusPublisher } from './statusEvents.js';

export interface InsertBackfilledDeps {
  executions: Pick<ExecutionStore, 'insertOccurrences'>;
  queues: Pick<ExecutionQueues, 'enqueue'>;
  events: StatusPublisher;
  logger: Logger;
}

/**
 * A backfill's write (jobs/backfillJob.ts): inserts a BACKFILL execution of `job` for each of
 * `instants` (nominal occurrences), already QUEUED, due at its instant (`scheduledFor`, what the
 * target is told it runs for) and keyed as the scheduler keys that occurrence; an occurrence that has an execution already being skipped (the unique
 * occurrence key: whoever wrote it, the scheduler or an earlier backfill, nothing is created twice).
 * Then publishes the SCHEDULED and QUEUED events of those it inserted and enqueues them, the n-th at
 * `dueTimes[n]` (the backfill's pace), with the job. Should the enqueue fail, it is only logged:
 * reconcile enqueues the executions later, each at once. Returns what it inserted and how many
 * occurrences it found already there.
 */
export async function insertBackfilled(
  deps: InsertBackfilledDeps,
  job: JobDoc,
  instants: readonly Date[],
  dueTimes: (count: number) => Date[],
  now: Date,
): Promise<{ inserted: ExecutionDoc[]; existing: number }> {
  const fresh = instants.map((nominal) =>
    queuedOnInsert(
      newExecution(
        {
          tenantId: job.tenantId,
          jobId: job._id,
          occurrenceKey: occurrenceKey(job._id, nominal),
          trigger: 'BACKFILL',
          workload: job.workload,
          scheduledFor: nominal,
          maxAttempts: job.retryPolicy.maxAttempts,
        },
        now,
      ),
      now,
    ),
  );
  const { inserted, existing } = await deps.executions.insertOccurrences(fresh);
  await publishInserted(deps, inserted, now);
  const due = dueTimes(inserted.length);
  try {
    await deps.queues.enqueue(inserted.map((e, i) => queueEntry(e, due[i], { kind: 'waiting' }, job)));
  } catch (error) {
    deps.logger.warn('could not enqueue backfilled executions; reconcile will', { count: inserted.length, error: errorMessage(error) });
  }
  return { inserted, existing };
}
