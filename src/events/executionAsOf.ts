import { BSON } from 'mongodb';
import { STARTABLE_STATUSES, applyAttemptEnd, type ExecutionDoc } from '../domain/execution.js';
import type { ExecutionEventMessage } from './executionEventBus.js';

const { EJSON } = BSON;

/** Parsed once per event object: the bus hands the same object to every listener of the tenant. */
const carried = new WeakMap<ExecutionEventMessage, ExecutionDoc>();

/** The execution `event` carries (see withExecution), or null when the subscriber must read it. */
export function carriedExecution(event: ExecutionEventMessage): ExecutionDoc | null {
  if (!event.execution) return null;
  let doc = carried.get(event);
  if (!doc) {
    doc = EJSON.parse(event.execution) as ExecutionDoc;
    carried.set(event, doc);
  }
  return doc;
}

/**
 * The execution as of `event`: a worker's RUNNING event goes out when the attempt starts, before its
 * start is written to MongoDB (the deferred claim, docs/architecture.md), so the stored document may
 * still be waiting at the attempt before; it is shown running that attempt, as it will be stored.
 * Any other pairing is returned as stored. Pure.
 */
export function executionAsOf(doc: ExecutionDoc, event: Pick<ExecutionEventMessage, 'status' | 'occurredAt' | 'attempt'>): ExecutionDoc {
  const started = event.attempt;
  if (event.status !== 'RUNNING' || !started || !STARTABLE_STATUSES.includes(doc.status) || doc.attempt !== started.number - 1) return doc;
  const startedAt = new Date(event.occurredAt);
  return {
    ...doc,
    status: 'RUNNING',
    attempt: started.number,
    startedAt: doc.startedAt ?? startedAt,
    nextAttemptAt: null,
    attempts: [
      ...doc.attempts,
      { number: started.number, startedAt, finishedAt: null, outcome: null, error: null, httpStatus: null, workerId: started.workerId },
    ],
  };
}

/**
 * `known`, the execution as relayed for its previous event, as `event` leaves it, when that needs no
 * read: a worker's RUNNING event (as executionAsOf shows it) or an end event carrying its fields.
 * Null when `known` is not the state the event moved from (an event in between was not relayed
 * here): the caller reads it. Status and attempt number together identify each state. Pure.
 */
export function executionAfter(known: ExecutionDoc, event: ExecutionEventMessage): ExecutionDoc | null {
  if (known.status !== event.previousStatus) return null;
  const started = event.attempt;
  if (event.status === 'RUNNING' && started && STARTABLE_STATUSES.includes(known.status) && known.attempt === started.number - 1) {
    return executionAsOf(known, event);
  }
  const end = event.end;
  if (end && end.status === event.status && known.status === 'RUNNING' && known.attempt === end.attempt) {
    const nextAttemptAt = end.nextAttemptAt === null ? null : new Date(end.nextAttemptAt);
    return applyAttemptEnd(known, end.attempt, { ...end, nextAttemptAt }, new Date(event.occurredAt));
  }
  return null;
}
