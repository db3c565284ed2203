import { describe, expect, it } from '@jest/globals';
import { CRASHED_ERROR, crashedFields } from '../../src/domain/attemptEnd.js';
import { crashAttempt, type CrashAttemptDeps } from '../../src/transitions/crashAttempt.js';
import { afterT0, trackedExecution } from '../support/executionFixtures.js';
import { attemptMetrics, publishedEvents, silentLogger } from '../support/workerFakes.js';

const STARTED = afterT0(1000);
const NOW = afterT0(61_000);

/** An execution RUNNING its attempt `attempt` (of `maxAttempts`), started at STARTED by a worker now gone. */
const running = (attempt: number, maxAttempts: number) => trackedExecution('RUNNING', attempt, { maxAttempts, startedAt: STARTED });

/** The transition over a store that applies the takeover's fields, as RunStore.recordCrash does, unless the execution changed (`changed`). */
function setup(changed = false) {
  const { events, published } = publishedEvents();
  const { metrics, counted } = attemptMetrics();
  const deps: CrashAttemptDeps = {
    store: {
      recordCrash: async (current, now, unwritten) => (changed ? null : { ...current, ...crashedFields(current, now, unwritten ?? null) }),
    },
    events,
    logger: silentLogger(),
    metrics,
  };
  return { deps, events: published, metrics: counted };
}

describe('crashAttempt: a lost attempt CRASHED, the execution RETRYING (due now) or FAILED', () => {
  it("records the RUNNING attempt CRASHED and the execution RETRYING due now, counted from the attempt's start", async () => {
    const { deps, events, metrics } = setup();
    const crashed = await crashAttempt(deps, { current: running(1, 3), unwritten: null }, NOW);
    expect(crashed?.after).toMatchObject({ status: 'RETRYING', attempt: 1, nextAttemptAt: NOW, finishedAt: null, error: CRASHED_ERROR });
    expect(crashed?.after.attempts).toEqual([
      { number: 1, startedAt: STARTED, finishedAt: NOW, outcome: 'CRASHED', error: CRASHED_ERROR, httpStatus: null, workerId: 'gone' },
    ]);
    expect(metrics).toEqual(['took over', 'attempt CRASHED IO_BOUND acme 60000 ms', 'retried IO_BOUND']);
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
    expect(metrics).toEqual(['took over', 'attempt CRASHED IO_BOUND acme 60000 ms', 'finished FAILED SCHEDULE acme']);
    expect(events[0]).toMatchObject({ previousStatus: 'RUNNING', status: 'FAILED' });
  });

  it('tells the alert sink of the FAILED end of a last attempt lost, and of nothing for a retry', async () => {
    const told: unknown[] = [];
    const alerts = { ended: (end: unknown) => told.push(end) };
    await crashAttempt({ ...setup().deps, alerts }, { current: running(1, 3), unwritten: null }, NOW);
    await crashAttempt({ ...setup().deps, alerts }, { current: running(2, 2), unwritten: null }, NOW);
    expect(told).toEqual([
      {
        tenantId: 'acme',
        jobId: '650000000000000000000002',
        executionId: '650000000000000000000001',
        status: 'FAILED',
        reason: null,
        at: NOW,
      },
    ]);
  });

  it('an attempt whose start only its Redis claim held is recorded whole, from the holder', async () => {
    const { deps, metrics } = setup();
    const waiting = trackedExecution('QUEUED', 0);
    const holder = { workerId: 'w-dead', startedAt: afterT0(31_000) };
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
    expect(metrics).toEqual(['took over', 'attempt CRASHED IO_BOUND acme 30000 ms', 'retried IO_BOUND']);
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
