import { describe, expect, it } from '@jest/globals';
import { ObjectId } from 'mongodb';
import { CRASHED_ERROR, crashedFields } from '../../src/domain/attemptEnd.js';
import { newExecution, type ExecutionDoc } from '../../src/domain/execution.js';
import type { ExecutionEventMessage } from '../../src/events/executionEventBus.js';
import { createLogger } from '../../src/logger.js';
import { crashAttempt, type CrashAttemptDeps } from '../../src/transitions/crashAttempt.js';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const STARTED = new Date(T0.getTime() + 1000);
const NOW = new Date(T0.getTime() + 61_000);

/** An execution RUNNING its attempt `attempt` (of `maxAttempts`), started at STARTED by a worker now gone. */
function running(attempt: number, maxAttempts: number): ExecutionDoc {
  const base = newExecution(
    {
      _id: new ObjectId('650000000000000000000001'),
      tenantId: 'acme',
      jobId: new ObjectId('650000000000000000000002'),
      occurrenceKey: 'k',
      trigger: 'SCHEDULE',
      workload: 'IO_BOUND',
      scheduledFor: T0,
      maxAttempts,
    },
    T0,
  );
  const attempts = Array.from({ length: attempt }, (_, i) => ({
    number: i + 1,
    startedAt: STARTED,
    finishedAt: i + 1 < attempt ? STARTED : null,
    outcome: i + 1 < attempt ? ('FAILED' as const) : null,
    error: null,
    httpStatus: null,
    workerId: 'gone',
  }));
  return { ...base, status: 'RUNNING', attempt, attempts, startedAt: STARTED };
}

/** The transition over a store that applies the takeover's fields, as RunStore.recordCrash does, unless the execution changed (`changed`). */
function setup(changed = false) {
  const events: ExecutionEventMessage[] = [];
  const metrics: string[] = [];
  const deps: CrashAttemptDeps = {
    store: {
      recordCrash: async (current, now, unwritten) => (changed ? null : { ...current, ...crashedFields(current, now, unwritten ?? null) }),
    },
    events: {
      publish: async (published) => {
        events.push(...published);
      },
    },
    logger: createLogger({}, 'silent'),
    metrics: {
      tookOver: () => metrics.push('took over'),
      attemptEnded: (outcome, _workload, _tenantId, durationMs) => metrics.push(`attempt ${outcome} ${durationMs} ms`),
      retried: () => metrics.push('retried'),
      executionFinished: (status) => metrics.push(`finished ${status}`),
    },
  };
  return { deps, events, metrics };
}

describe('crashAttempt: a lost attempt CRASHED, the execution RETRYING (due now) or FAILED', () => {
  it("records the RUNNING attempt CRASHED and the execution RETRYING due now, counted from the attempt's start", async () => {
    const { deps, events, metrics } = setup();
    const crashed = await crashAttempt(deps, { current: running(1, 3), unwritten: null }, NOW);
    expect(crashed?.after).toMatchObject({ status: 'RETRYING', attempt: 1, nextAttemptAt: NOW, finishedAt: null, error: CRASHED_ERROR });
    expect(crashed?.after.attempts).toEqual([
      { number: 1, startedAt: STARTED, finishedAt: NOW, outcome: 'CRASHED', error: CRASHED_ERROR, httpStatus: null, workerId: 'gone' },
    ]);
    expect(metrics).toEqual(['took over', 'attempt CRASHED 60000 ms', 'retried']);
    expect(events).toEqual([
      {
        tenantId: 'acme',
        executionId: '650000000000000000000001',
        jobId: '650000000000000000000002',
        previousStatus: 'RUNNING',
        status: 'RETRYING',
        occurredAt: NOW.toISOString(),
      },
    ]);
    expect(crashed?.event).toEqual(events[0]);
  });

  it('the last attempt lost fails the execution', async () => {
    const { deps, events, metrics } = setup();
    const crashed = await crashAttempt(deps, { current: running(2, 2), unwritten: null }, NOW);
    expect(crashed?.after).toMatchObject({ status: 'FAILED', attempt: 2, nextAttemptAt: null, finishedAt: NOW });
    expect(crashed?.after.attempts.map((a) => a.outcome)).toEqual(['FAILED', 'CRASHED']);
    expect(metrics).toEqual(['took over', 'attempt CRASHED 60000 ms', 'finished FAILED']);
    expect(events[0]).toMatchObject({ previousStatus: 'RUNNING', status: 'FAILED' });
  });

  it('an attempt whose start only its Redis claim held is recorded whole, from the holder', async () => {
    const { deps, metrics } = setup();
    const waiting: ExecutionDoc = { ...running(0, 3), status: 'QUEUED', startedAt: null };
    const holder = { workerId: 'w-dead', startedAt: new Date(T0.getTime() + 31_000) };
    const crashed = await crashAttempt(deps, { current: waiting, unwritten: holder }, NOW);
    expect(crashed?.after).toMatchObject({ status: 'RETRYING', attempt: 1, startedAt: holder.startedAt });
    expect(crashed?.after.attempts).toEqual([
      {
        number: 1,
        startedAt: holder.startedAt,
        finishedAt: NOW,
        outcome: 'CRASHED',
        error: CRASHED_ERROR,
        httpStatus: null,
        workerId: 'w-dead',
      },
    ]);
    expect(metrics).toEqual(['took over', 'attempt CRASHED 30000 ms', 'retried']);
  });

  it('keeps the first attempt as the start of an execution that had attempts before the unwritten one', () => {
    const fields = crashedFields(running(1, 3), NOW, { workerId: 'w-dead', startedAt: NOW });
    expect(fields.attempt).toBe(2);
    expect('startedAt' in fields).toBe(false);
  });

  it('an execution that changed meanwhile: nothing counted or announced', async () => {
    const { deps, events, metrics } = setup(true);
    expect(await crashAttempt(deps, { current: running(1, 3), unwritten: null }, NOW)).toBeNull();
    expect(events).toEqual([]);
    expect(metrics).toEqual([]);
  });
});
