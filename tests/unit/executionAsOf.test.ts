import { describe, expect, it } from '@jest/globals';
import { ObjectId } from 'mongodb';
import { newExecution, type ExecutionDoc } from '../../src/domain/execution.js';
import { executionAsOf } from '../../src/events/statusEvent.js';

const T0 = new Date('2030-01-01T00:00:00Z');
const AT = '2030-01-01T00:00:05.000Z';
const waiting = (status: ExecutionDoc['status'], attempt: number): ExecutionDoc => ({
  ...newExecution(
    {
      tenantId: 't',
      jobId: new ObjectId(),
      occurrenceKey: 'k',
      trigger: 'SCHEDULE',
      workload: 'IO_BOUND',
      scheduledFor: T0,
      maxAttempts: 3,
    },
    T0,
  ),
  status,
  attempt,
});
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
