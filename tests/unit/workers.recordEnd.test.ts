// Covers: src/workers/attemptLogger.ts, src/workers/retryWhileMongoDown.ts
import { describe, expect, it } from '@jest/globals';
import { MongoNetworkError, ObjectId } from 'mongodb';
import type { AttemptResult } from '../../src/domain/attemptEnd.js';
import type { ExecutionEventMessage } from '../../src/events/executionEventBus.js';
import { createLogger } from '../../src/logger.js';
import type { JobSnapshot, QueueEntry } from '../../src/queue/queueEntry.js';
import type { EndRequest, EndResult } from '../../src/store/runStore.js';
import type { Started } from '../../src/workers/claimAttempt.js';
import { DeferredClaim } from '../../src/workers/deferredClaims.js';
import { recordEnd, type EndDeps } from '../../src/workers/recordEnd.js';
import type { Run } from '../../src/workers/run.js';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const STARTED = new Date(T0.getTime() + 1000);
const NOW = new Date(T0.getTime() + 4000);
/** The end's write, a little after the decision. */
const AT = new Date(T0.getTime() + 4250);

const run: Run = {
  _id: new ObjectId('650000000000000000000001'),
  executionId: '650000000000000000000001',
  tenantId: 'acme',
  jobId: new ObjectId('650000000000000000000002'),
  workload: 'IO_BOUND',
  status: 'QUEUED',
  attempt: 0,
  maxAttempts: 3,
  scheduledFor: T0,
  payloadJson: null,
  job: null,
  trigger: 'SCHEDULE',
};

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
function started(written: boolean): Started {
  const request = { id: run._id, from: { status: run.status, attempt: 0 }, workerId: 'worker-1', startedAt: STARTED, deadlineAfterMs: 1 };
  const claim = new DeferredClaim({ claim: async () => ({ claimed: true }) }, request, () => undefined, written);
  return { number: 1, startedAt: STARTED, claim };
}

/** recordEnd over fakes of its ports: the store answers `answers` in turn. */
function setup(...answers: (Partial<EndResult> | Error)[]) {
  const requests: EndRequest[] = [];
  const events: ExecutionEventMessage[] = [];
  const enqueued: QueueEntry[] = [];
  const metrics: string[] = [];
  const lines: Record<string, unknown>[] = [];
  const deps: EndDeps = {
    runStore: {
      endAttempt: async (request) => {
        requests.push(request);
        const answer = answers.shift() ?? {};
        if (answer instanceof Error) throw answer;
        return { ended: true, addedToCancelled: false, at: AT, ...answer };
      },
    },
    queues: {
      enqueue: async (entries) => {
        enqueued.push(...entries);
      },
    },
    events: {
      publish: async (published) => {
        events.push(...published);
      },
    },
    metrics: {
      attemptEnded: (outcome, _workload, _tenantId, durationMs) => metrics.push(`attempt ${outcome} in ${durationMs} ms`),
      retried: () => metrics.push('retried'),
      executionFinished: (status) => metrics.push(`finished ${status}`),
    },
    clock: () => NOW,
    random: () => 0,
    logger: createLogger({}, 'info', (line) => lines.push(JSON.parse(line) as Record<string, unknown>)),
    workerId: 'worker-1',
  };
  return { deps, requests, events, enqueued, metrics, lines };
}

describe("recordEnd: the decision, the end's transition, the retry and what operators see", () => {
  it('records a success from RUNNING and announces it carrying what the end wrote', async () => {
    const { deps, requests, events, enqueued, metrics, lines } = setup();
    await recordEnd(deps, run, job, started(true), result('SUCCEEDED'));
    expect(requests).toEqual([
      {
        id: run._id,
        attempt: 1,
        status: 'SUCCEEDED',
        nextAttemptAt: null,
        final: true,
        error: null,
        reason: null,
        resultJson: '{"ok":true}',
        outcome: 'SUCCEEDED',
        httpStatus: 200,
        start: null,
      },
    ]);
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
    expect(metrics).toEqual(['attempt SUCCEEDED in 3250 ms', 'finished SUCCEEDED']);
    expect(enqueued).toEqual([]);
    expect(lines).toEqual([]);
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
    expect(metrics).toEqual(['attempt FAILED in 3250 ms', 'retried']);
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

  it('the last failed attempt ends the execution FAILED, with nothing re-enqueued', async () => {
    const { deps, enqueued, metrics, lines } = setup();
    await recordEnd(deps, { ...run, maxAttempts: 1 }, job, started(true), result('TIMED_OUT', 'Timed out after 1 s'));
    expect(enqueued).toEqual([]);
    expect(metrics).toEqual(['attempt TIMED_OUT in 3250 ms', 'finished FAILED']);
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
