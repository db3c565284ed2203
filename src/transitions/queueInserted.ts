import type { ExecutionDoc } from '../domain/execution.js';
import type { JobDoc } from '../domain/job.js';
import type { ExecutionEventMessage } from '../events/executionEventBus.js';
import type { Logger } from '../logger.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';
import { queueEntry } from '../queue/queueEntry.js';
import { publishStatusEvents, statusEvent, withExecution, type StatusPublisher } from './statusEvents.js';

/*
 * Insert → publish → enqueue, the path of every execution that enters the queue at its insert (the
 * materialiser's occurrences, a manual trigger): the execution is written already QUEUED, its events
 * go out, and only then its queue entry is added, so a worker never sees one still SCHEDULED and
 * the events stay in order. A crash between the insert and the enqueue leaves a QUEUED execution
 * without an entry, which the next pass or reconcile re-enqueues.
 */

/** A fresh execution (SCHEDULED, as newExecution makes it) as it is inserted: already QUEUED, with no SCHEDULED write to follow. */
export function queuedOnInsert(doc: ExecutionDoc, now: Date): ExecutionDoc {
  return { ...doc, status: 'QUEUED', queuedAt: now };
}

/**
 * Publishes the events of executions this caller has just inserted, each carrying its document: a
 * SKIPPED one's insert, and a QUEUED one's SCHEDULED then QUEUED. Returns them.
 */
export async function publishInserted(
  deps: { events: StatusPublisher; logger: Logger },
  inserted: readonly ExecutionDoc[],
  now: Date,
): Promise<ExecutionEventMessage[]> {
  const events = [
    ...inserted.filter((e) => e.status === 'SKIPPED').flatMap((e) => withExecution(e, [statusEvent(e, null, 'SKIPPED', now)])),
    ...inserted
      .filter((e) => e.status === 'QUEUED')
      .flatMap((e) => withExecution(e, [statusEvent(e, null, 'SCHEDULED', now), statusEvent(e, 'SCHEDULED', 'QUEUED', now)])),
  ];
  await publishStatusEvents(deps.events, deps.logger, events);
  return events;
}

/**
 * Adds a waiting entry for each of `queued` (as QUEUED: the status the entry tells the worker to
 * expect), due at its time; the job (`jobOf`) travels with the entry, so the worker starts the
 * execution without reading it.
 */
export async function enqueueQueued(
  deps: { queues: Pick<ExecutionQueues, 'enqueue'> },
  queued: readonly ExecutionDoc[],
  jobOf: (execution: ExecutionDoc) => JobDoc | undefined,
): Promise<void> {
  await deps.queues.enqueue(queued.map((e) => queueEntry(e, e.scheduledFor, { kind: 'waiting' }, jobOf(e))));
}
