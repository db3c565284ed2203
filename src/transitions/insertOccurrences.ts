import type { ExecutionDoc } from '../domain/execution.js';
import type { JobDoc } from '../domain/job.js';
import type { ExecutionEventMessage } from '../events/executionEventBus.js';
import type { Logger } from '../logger.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';
import type { SchedulerStore } from '../store/schedulerStore.js';
import { reportEnds, type AlertSink } from '../domain/alertSink.js';
import { enqueueQueued, publishInserted } from './queueInserted.js';
import { queueScheduled } from './queueScheduled.js';
import type { StatusPublisher } from './statusEvents.js';

/** What one insert of occurrences answers (SchedulerStore.insertExecutions). */
export type InsertedOccurrences = Awaited<ReturnType<SchedulerStore['insertExecutions']>>;

export interface InsertOccurrencesDeps {
  store: Pick<SchedulerStore, 'insertExecutions' | 'markQueued'>;
  queues: Pick<ExecutionQueues, 'enqueue'>;
  events: StatusPublisher;
  logger: Logger;
  /** Told of the occurrences inserted SKIPPED (misfire, budget), for alert rules (none: no alerts evaluated). */
  alerts?: AlertSink;
}

/**
 * The materialiser's write (docs/architecture.md, "The life of an occurrence", step 3): inserts a pass's executions, each QUEUED
 * (queuedOnInsert) or SKIPPED (skippedOnInsert), a duplicate occurrence key meaning already done:
 * `heads` first, then the ones `rest` decides from what the heads found (a pass owns its decisions
 * for a job only where its head landed). Then queues again the executions it found still waiting
 * (queueScheduled), publishes the events of those it inserted, and enqueues the waiting ones, each
 * at its time with its job (from `jobs`). Every step is idempotent, so a crash between steps or a
 * second leader never loses or doubles an occurrence. Returns what it inserted, what now waits in
 * the queue (its own QUEUED executions and those found left behind) and the events it published.
 */
export async function insertOccurrences(
  deps: InsertOccurrencesDeps,
  heads: ExecutionDoc[],
  rest: (heads: InsertedOccurrences) => Promise<ExecutionDoc[]>,
  jobs: readonly JobDoc[],
  now: Date,
): Promise<{ inserted: ExecutionDoc[]; waiting: ExecutionDoc[]; events: ExecutionEventMessage[] }> {
  const first = await deps.store.insertExecutions(heads);
  const second = await deps.store.insertExecutions(await rest(first));
  const inserted = [...first.inserted, ...second.inserted];
  const leftBehind = await queueScheduled(deps, [...first.leftBehind, ...second.leftBehind], now);
  // Only what this pass inserted is announced (see queueScheduled).
  const events = await publishInserted(deps, inserted, now);
  reportEnds(
    deps.alerts,
    inserted
      // An exclusion window's skip is the calendar working, not something to be told about.
      .filter((e) => e.status === 'SKIPPED' && !e.excluded)
      .map((e) => ({
        trigger: e.trigger,
        tenantId: e.tenantId,
        jobId: e.jobId.toHexString(),
        executionId: e._id.toHexString(),
        status: e.status,
        reason: e.reason,
        at: now,
      })),
  );
  const waiting = [...inserted.filter((e) => e.status === 'QUEUED'), ...leftBehind];
  const byId = new Map(jobs.map((j) => [j._id.toHexString(), j]));
  await enqueueQueued(deps, waiting, (e) => byId.get(e.jobId.toHexString()));
  return { inserted, waiting, events };
}
