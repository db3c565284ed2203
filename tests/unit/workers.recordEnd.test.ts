// Covers: src/workers/attemptLogger.ts, src/workers/retryWhileMongoDown.ts
import { describe, expect, it } from '@jest/globals';
import { MongoNetworkError } from 'mongodb';
import type { AttemptResult } from '../../src/domain/attemptEnd.js';
import type { JobSnapshot } from '../../src/queue/queueEntry.js';
import type { EndResult } from '../../src/store/runStore.js';
import { recordEnd, type EndDeps } from '../../src/workers/recordEnd.js';
import { afterT0, queuedRun, SUCCEEDED_END } from '../support/executionFixtures.js';
import { attemptMetrics, endingStore, enqueuedEntries, loggedLines, publishedEvents, startedAttempt } from '../support/workerFakes.js';

const STARTED = afterT0(1000);
const NOW = afterT0(4000);
/** The end's write, a little after the decision. */
const AT = afterT0(4250);

const run = queuedRun();

const job: Pick<JobSnapshot, 'retryPolicy'> = {
  retryPolicy: { maxAttempts: 3, initialBackoffSeconds: 2, maxBackoffSeconds: 60, backoffMultiplier: 2 },
};

const result = (outcome: AttemptResult['outcome'], error: string | null = null): AttemptResult => ({
  outcome,
  error,
  httpStatus: outcome === 'SUCCEEDED' ? 200 : null,
  resultJson: outcome === 'SUCCEEDED' ? '{"ok":true}' : null,
});

/** An attempt claimed at STARTED whose start MongoDB holds (`written`) or not yet. */
const started = (written: boolean) => startedAttempt(STARTED, written);

/** recordEnd over fakes of its ports: the store answers `answers` in turn. */
function setup(...answers: (Partial<EndResult> | Error)[]) {
  const { store, requests } = endingStore(AT, ...answers);
  const { events, published } = publishedEvents();
  const { queues, enqueued } = enqueuedEntries();
  const { metrics, counted } = attemptMetrics();
  const { logger, lines } = loggedLines();
  const children: unknown[] = [];
  const child = logger.child.bind(logger);
  logger.child = (bindings) => (children.push(bindings), child(bindings));
  const deps: EndDeps = {
    runStore: store,
    queues,
    events,
    metrics,
    clock: () => NOW,
    random: () => 0,
    logger,
    workerId: 'worker-1',
  };
  return { deps, requests, events: published, enqueued, metrics: counted, lines, children };
}

describe("recordEnd: the decision, the end's transition, the retry and what operators see", () => {
  it('records a success from RUNNING and announces it carrying what the end wrote', async () => {
    const { deps, requests, events, enqueued, metrics, lines, children } = setup();
    await recordEnd(deps, run, job, started(true), result('SUCCEEDED'));
    expect(requests).toEqual([{ id: run._id, attempt: 1, ...SUCCEEDED_END, start: null }]);
    expect(events).toEqual([
      {
        tenantId: 'acme',
        executionId: run.executionId,
        jobId: '650000000000000000000002',
        previousStatus: 'RUNNING',
        status: 'SUCCEEDED',
        occurredAt: AT.toISOString(),
        end: expect.objectContaining({ attempt: 1, status: 'SUCCEEDED', outcome: 'SUCCEEDED', resultJson: '{"ok":true}' }),
      },
    ]);
    expect(metrics).toEqual(['attempt SUCCEEDED IO_BOUND acme 3250 ms', 'finished SUCCEEDED SCHEDULE acme']);
    expect(enqueued).toEqual([]);
    expect(lines).toEqual([]);
    // A child logger per attempt is costly in a burst: one is made only for a line written.
    expect(children).toEqual([]);
  });

  it('writes a start that never reached MongoDB with the end, as a compare-and-set on what the start expected', async () => {
    const { deps, requests } = setup();
    await recordEnd(deps, run, job, started(false), result('SUCCEEDED'));
    expect(requests[0].start).toEqual({ from: { status: 'QUEUED', attempt: 0 }, startedAt: STARTED, workerId: 'worker-1' });
  });

  it('a failure with attempts left retries: RETRYING, re-enqueued at nextAttemptAt, and one line for operators', async () => {
    const { deps, requests, events, enqueued, metrics, lines } = setup();
    await recordEnd(deps, run, job, started(true), result('FAILED', 'HTTP 500'));
    const nextAttemptAt = new Date(NOW.getTime() + 2000);
    expect(requests[0]).toMatchObject({ status: 'RETRYING', nextAttemptAt, final: false, outcome: 'FAILED', error: 'HTTP 500' });
    expect(events[0]).toMatchObject({ previousStatus: 'RUNNING', status: 'RETRYING', end: { nextAttemptAt: nextAttemptAt.toISOString() } });
    expect(enqueued).toEqual([
      {
        id: `${run.executionId}-r1`,
        workload: 'IO_BOUND',
        dueAt: nextAttemptAt,
        message: {
          executionId: run.executionId,
          tenantId: 'acme',
          run: expect.objectContaining({ status: 'RETRYING', attempt: 1, maxAttempts: 3, trigger: 'SCHEDULE' }),
        },
      },
    ]);
    expect(metrics).toEqual(['attempt FAILED IO_BOUND acme 3250 ms', 'retried IO_BOUND']);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        msg: 'attempt failed',
        tenantId: 'acme',
        attempt: 1,
        outcome: 'FAILED',
        error: 'HTTP 500',
        next: 'RETRYING',
      }),
    ]);
  });

  it("writes and announces the receiver's Retry-After it obeys, and queues the retry at it; a refused answer's line says why", async () => {
    const { deps, requests, events, enqueued, lines } = setup();
    const busy: AttemptResult = { outcome: 'FAILED', error: 'HTTP 429', httpStatus: 429, resultJson: '{}', retryAfter: '30' };
    await recordEnd(deps, run, job, started(true), busy);
    const nextAttemptAt = new Date(NOW.getTime() + 30_000);
    expect(requests[0]).toMatchObject({ status: 'RETRYING', nextAttemptAt, retryAfterSeconds: 30, httpStatus: 429 });
    expect(events[0]).toMatchObject({ status: 'RETRYING', end: { retryAfterSeconds: 30, nextAttemptAt: nextAttemptAt.toISOString() } });
    expect(enqueued).toEqual([expect.objectContaining({ dueAt: nextAttemptAt })]);

    await recordEnd(deps, run, job, started(true), { ...busy, error: 'HTTP 404', httpStatus: 404, retryAfter: null });
    expect(requests[1]).toMatchObject({ status: 'FAILED', final: true, error: expect.stringMatching(/^HTTP 404: not retried/) });
    expect(requests[1]).not.toHaveProperty('retryAfterSeconds');
    expect(lines[1]).toMatchObject({ msg: 'attempt failed', error: expect.stringMatching(/^HTTP 404: not retried/), next: 'FAILED' });
  });

  it('the last failed attempt ends the execution FAILED, with nothing re-enqueued', async () => {
    const { deps, enqueued, metrics, lines } = setup();
    await recordEnd(deps, { ...run, maxAttempts: 1 }, job, started(true), result('TIMED_OUT', 'Timed out after 1 s'));
    expect(enqueued).toEqual([]);
    expect(metrics).toEqual(['attempt TIMED_OUT IO_BOUND acme 3250 ms', 'finished FAILED SCHEDULE acme']);
    expect(lines[0]).toMatchObject({ msg: 'attempt failed', next: 'FAILED' });
  });

  it('an attempt that joined an execution cancelled meanwhile says CANCELLED again, and counts nothing', async () => {
    const { deps, events, metrics, enqueued } = setup({ ended: false, addedToCancelled: true });
    await recordEnd(deps, run, job, started(false), result('FAILED', 'boom'));
    expect(events).toEqual([expect.objectContaining({ previousStatus: 'RUNNING', status: 'CANCELLED', occurredAt: AT.toISOString() })]);
    expect(events[0].end).toBeUndefined();
    expect(metrics).toEqual([]);
    expect(enqueued).toEqual([]);
  });

  it('an execution that moved on without the attempt gets nothing but a line for operators', async () => {
    const { deps, events, metrics, enqueued, lines } = setup({ ended: false });
    await recordEnd(deps, run, job, started(true), result('FAILED', 'boom'));
    expect(events).toEqual([]);
    expect(metrics).toEqual([]);
    expect(enqueued).toEqual([]);
    expect(lines).toEqual([expect.objectContaining({ msg: 'attempt ended after its execution moved on', attempt: 1, outcome: 'FAILED' })]);
  });

  it("retries the end while MongoDB is unreachable, so a finished attempt's result is not lost", async () => {
    const { deps, requests, events } = setup(new MongoNetworkError('connection reset'), {});
    await recordEnd(deps, run, job, started(true), result('SUCCEEDED'));
    expect(requests).toHaveLength(2);
    expect(events).toHaveLength(1);
  });
});
