import { describe, expect, it } from '@jest/globals';
import type { AttemptEnd, ExecutionDoc } from '../../src/domain/execution.js';
import type { ExecutionEventMessage } from '../../src/events/executionEventBus.js';
import { executionAfter, executionAsOf } from '../../src/events/executionAsOf.js';
import { statusEvent, withAttemptEnd } from '../../src/transitions/statusEvents.js';
import { executionDoc, SUCCEEDED_END, T0 } from '../support/executionFixtures.js';

const AT = '2030-01-01T00:00:05.000Z';
const waiting = (status: ExecutionDoc['status'], attempt: number): ExecutionDoc => executionDoc(T0, { tenantId: 't', status, attempt });
const running = (number: number) => ({ status: 'RUNNING' as const, occurredAt: AT, attempt: { number, workerId: 'w-1' } });

describe('executionAsOf: the execution a subscriber is shown with an event', () => {
  it('shows a waiting execution running the attempt a RUNNING event announces, before its start is stored', () => {
    const shown = executionAsOf(waiting('QUEUED', 0), running(1));
    expect(shown).toMatchObject({ status: 'RUNNING', attempt: 1, startedAt: new Date(AT), nextAttemptAt: null });
    expect(shown.attempts).toEqual([
      { number: 1, startedAt: new Date(AT), finishedAt: null, outcome: null, error: null, httpStatus: null, workerId: 'w-1' },
    ]);
    // A retry's attempt keeps the execution's first start.
    const retrying = { ...waiting('RETRYING', 1), startedAt: T0 };
    expect(executionAsOf(retrying, running(2))).toMatchObject({ status: 'RUNNING', attempt: 2, startedAt: T0 });
  });

  it('returns the stored execution when it is past the event or the event says nothing of an attempt', () => {
    // The attempt already ended (RETRYING at that attempt), or finished, or is stored RUNNING.
    for (const doc of [waiting('RETRYING', 1), waiting('SUCCEEDED', 1), waiting('RUNNING', 1)])
      expect(executionAsOf(doc, running(1))).toBe(doc);
    const queued = waiting('QUEUED', 0);
    expect(executionAsOf(queued, { status: 'RUNNING', occurredAt: AT })).toBe(queued);
    expect(executionAsOf(queued, { status: 'CANCELLED', occurredAt: AT })).toBe(queued);
  });
});

const START = new Date('2030-01-01T00:00:05Z');
const END = new Date('2030-01-01T00:00:07Z');
const queued: ExecutionDoc = { ...waiting('QUEUED', 0), queuedAt: T0 };
const runningEvent = (from: ExecutionDoc, number: number): ExecutionEventMessage =>
  statusEvent(from, from.status, 'RUNNING', START, { number, workerId: 'w-1' });
const endEvent = (from: ExecutionDoc, attempt: number, end: AttemptEnd): ExecutionEventMessage =>
  withAttemptEnd(statusEvent(from, 'RUNNING', end.status, END), attempt, end);

describe('executionAfter: an execution as an event leaves it, without a read', () => {
  it('follows QUEUED → RUNNING → SUCCEEDED as the worker writes them', () => {
    const running = executionAfter(queued, runningEvent(queued, 1))!;
    expect(running).toMatchObject({ status: 'RUNNING', attempt: 1, startedAt: START });
    const done = executionAfter(running, endEvent(running, 1, SUCCEEDED_END))!;
    expect(done).toEqual({
      ...queued,
      status: 'SUCCEEDED',
      attempt: 1,
      startedAt: START,
      finishedAt: END,
      resultJson: '{"ok":true}',
      updatedAt: END,
      attempts: [{ number: 1, startedAt: START, finishedAt: END, outcome: 'SUCCEEDED', error: null, httpStatus: 200, workerId: 'w-1' }],
    });
  });

  it('carries a retry: RETRYING with its next attempt, not finished', () => {
    const running = executionAfter(queued, runningEvent(queued, 1))!;
    const next = new Date('2030-01-01T00:00:09Z');
    const failed: AttemptEnd = {
      ...SUCCEEDED_END,
      status: 'RETRYING',
      nextAttemptAt: next,
      final: false,
      error: 'boom',
      resultJson: null,
      outcome: 'FAILED',
      httpStatus: 500,
    };
    expect(executionAfter(running, endEvent(running, 1, failed))).toMatchObject({
      status: 'RETRYING',
      nextAttemptAt: next,
      finishedAt: null,
      error: 'boom',
      attempts: [{ number: 1, outcome: 'FAILED', error: 'boom', httpStatus: 500, finishedAt: END }],
    });
  });

  it('gives null when the known state is not the one the event moved from, or the event does not say enough', () => {
    const running = executionAfter(queued, runningEvent(queued, 1))!;
    // A RUNNING of attempt 2 after a QUEUED at 0 (a state in between was not relayed here).
    expect(executionAfter(queued, runningEvent(queued, 2))).toBeNull();
    // An end of another attempt, or an end without its fields (a result too large to carry).
    expect(executionAfter(running, endEvent(running, 2, SUCCEEDED_END))).toBeNull();
    expect(executionAfter(running, statusEvent(running, 'RUNNING', 'SUCCEEDED', END))).toBeNull();
    // The known state is already past the event (relayed out of order).
    const done = executionAfter(running, endEvent(running, 1, SUCCEEDED_END))!;
    expect(executionAfter(done, runningEvent(queued, 1))).toBeNull();
    // Any other event (a cancel, a skip) is left to the carried execution or a read.
    expect(executionAfter(queued, statusEvent(queued, 'QUEUED', 'CANCELLED', END))).toBeNull();
  });

  it('leaves a large result out of the event', () => {
    const running = executionAfter(queued, runningEvent(queued, 1))!;
    const big = { ...SUCCEEDED_END, resultJson: JSON.stringify({ body: 'x'.repeat(20_000) }) };
    expect(endEvent(running, 1, big).end).toBeUndefined();
    expect(endEvent(running, 1, SUCCEEDED_END).end).toMatchObject({ attempt: 1, status: 'SUCCEEDED', httpStatus: 200 });
  });
});
