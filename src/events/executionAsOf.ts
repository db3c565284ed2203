import { BSON } from 'mongodb';
import { RUNNING_STATUS, STARTABLE_STATUSES, applyAttemptEnd, type ExecutionDoc } from '../domain/execution.js';
import type { ExecutionEventMessage } from './executionEventBus.js';

const { EJSON } = BSON;

/**
 * The execution `event` carries (see withExecution in transitions/statusEvents.ts), or null when the
 * subscriber must read it. Parses it on every call: the relay (LatestExecutions) calls it once per event.
 */
export function carriedExecution(event: ExecutionEventMessage): ExecutionDoc | null {
  return event.execution ? (EJSON.parse(event.execution) as ExecutionDoc) : null;
}

/**
 * The execution as of `event`: a worker's RUNNING event goes out when the attempt starts, before its
 * start is written to MongoDB (the deferred claim, docs/architecture.md), so the stored document may
 * still be waiting at the attempt before; it is shown running that attempt, as it will be stored.
 * Any other pairing is returned as stored. Pure.
 */
export function executionAsOf(doc: ExecutionDoc, event: Pick<ExecutionEventMessage, 'status' | 'occurredAt' | 'attempt'>): ExecutionDoc {
  const started = event.attempt;
  if (event.status !== RUNNING_STATUS || !started || !STARTABLE_STATUSES.includes(doc.status) || doc.attempt !== started.number - 1)
    return doc;
  const startedAt = new Date(event.occurredAt);
  return {
    ...doc,
    status: RUNNING_STATUS,
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
  if (event.status === RUNNING_STATUS && started && STARTABLE_STATUSES.includes(known.status) && known.attempt === started.number - 1) {
    return executionAsOf(known, event);
  }
  const end = event.end;
  if (end && end.status === event.status && known.status === RUNNING_STATUS && known.attempt === end.attempt) {
    const nextAttemptAt = end.nextAttemptAt === null ? null : new Date(end.nextAttemptAt);
    return applyAttemptEnd(known, end.attempt, { ...end, nextAttemptAt }, new Date(event.occurredAt));
  }
  return null;
}
