import { describe, expect, it } from '@jest/globals';
import type { AttemptEnd } from '../../src/domain/execution.js';
import type { AttemptEndDecision } from '../../src/domain/attemptEnd.js';
import type { EndResult } from '../../src/store/runStore.js';
import { endAttempt, type EndAttemptDeps } from '../../src/transitions/endAttempt.js';
import { afterT0, queuedRun } from '../support/executionFixtures.js';
import { attemptMetrics, endingStore, publishedEvents, silentLogger } from '../support/workerFakes.js';

const STARTED = afterT0(1000);
const AT = afterT0(3000);
const NEXT = afterT0(9000);

const run = queuedRun({ workload: 'CPU_BOUND', status: 'RETRYING', attempt: 1, payloadJson: '"own"', trigger: 'MANUAL' });

const end = (
  status: AttemptEndDecision['status'],
  fields: Partial<Omit<AttemptEnd, 'status'>> = {},
): AttemptEnd & Pick<AttemptEndDecision, 'status'> => ({
  status,
  nextAttemptAt: null,
  final: status !== 'RETRYING',
  error: null,
  reason: null,
  resultJson: null,
  outcome: status === 'RETRYING' ? 'FAILED' : status === 'CANCELLED' ? 'CANCELLED' : status,
  httpStatus: null,
  ...fields,
});

/** The transition over fakes: the store's end answers `answer`. */
function setup(answer: Partial<EndResult> = {}) {
  const { store, requests } = endingStore(AT, answer);
  const { events, published } = publishedEvents();
  const { metrics, counted } = attemptMetrics();
  const deps: EndAttemptDeps = {
    store,
    events,
    logger: silentLogger(),
    metrics,
  };
  return { deps, requests, events: published, metrics: counted };
}

const input = { run, attempt: 2, startedAt: STARTED, workerId: 'worker-1', startWritten: true };

describe('endAttempt: RUNNING → SUCCEEDED, RETRYING, FAILED or CANCELLED', () => {
  it('writes the end from RUNNING, counts the attempt and announces the end carrying what it wrote', async () => {
    const { deps, requests, events, metrics } = setup();
    const written = end('SUCCEEDED', { resultJson: '42', httpStatus: 200 });
    const ended = await endAttempt(deps, { ...input, end: written });
    expect(requests).toEqual([{ id: run._id, attempt: 2, ...written, start: null }]);
    expect(metrics).toEqual(['attempt SUCCEEDED CPU_BOUND acme 2000 ms', 'finished SUCCEEDED MANUAL acme']);
    expect(events).toEqual([
      {
        tenantId: 'acme',
        executionId: '650000000000000000000001',
        jobId: '650000000000000000000002',
        previousStatus: 'RUNNING',
        status: 'SUCCEEDED',
        occurredAt: AT.toISOString(),
        end: { ...written, attempt: 2, nextAttemptAt: null },
      },
    ]);
    expect(ended).toEqual({ kind: 'ended', at: AT, event: events[0], retry: null });
  });

  it('records a start MongoDB never got with the end, from the state the start expected', async () => {
    const { deps, requests } = setup();
    await endAttempt(deps, { ...input, startWritten: false, end: end('FAILED', { error: 'boom' }) });
    expect(requests[0].start).toEqual({ from: { status: 'RETRYING', attempt: 1 }, startedAt: STARTED, workerId: 'worker-1' });
  });

  it('a RETRYING end gives the execution waiting for its next attempt, due at nextAttemptAt', async () => {
    const { deps, events, metrics } = setup();
    const ended = await endAttempt(deps, { ...input, end: end('RETRYING', { nextAttemptAt: NEXT, error: 'HTTP 500' }) });
    expect(metrics).toEqual(['attempt FAILED CPU_BOUND acme 2000 ms', 'retried CPU_BOUND']);
    expect(events[0]).toMatchObject({ status: 'RETRYING', end: { nextAttemptAt: NEXT.toISOString(), attempt: 2 } });
    expect(ended).toMatchObject({ kind: 'ended', retry: { execution: { ...run, status: 'RETRYING', attempt: 2 }, dueAt: NEXT } });
  });

  it('a cancelled attempt ends the execution CANCELLED', async () => {
    const { deps, events, metrics } = setup();
    await endAttempt(deps, { ...input, end: end('CANCELLED', { reason: 'cancelled by a user', error: 'cancelled by a user' }) });
    expect(metrics).toEqual(['attempt CANCELLED CPU_BOUND acme 2000 ms', 'finished CANCELLED MANUAL acme']);
    expect(events[0]).toMatchObject({ previousStatus: 'RUNNING', status: 'CANCELLED', end: { reason: 'cancelled by a user' } });
  });

  it('an attempt that joined an execution cancelled meanwhile says CANCELLED again, without counting', async () => {
    const { deps, events, metrics } = setup({ ended: false, addedToCancelled: true });
    const ended = await endAttempt(deps, { ...input, startWritten: false, end: end('SUCCEEDED') });
    expect(metrics).toEqual([]);
    expect(events).toEqual([
      {
        tenantId: 'acme',
        executionId: '650000000000000000000001',
        jobId: '650000000000000000000002',
        previousStatus: 'RUNNING',
        status: 'CANCELLED',
        occurredAt: AT.toISOString(),
      },
    ]);
    expect(ended).toEqual({ kind: 'joined-cancelled', at: AT, event: events[0] });
  });

  it('an execution that moved on without the attempt: nothing counted or announced', async () => {
    const { deps, events, metrics } = setup({ ended: false });
    expect(await endAttempt(deps, { ...input, end: end('RETRYING', { nextAttemptAt: NEXT }) })).toEqual({ kind: 'moved-on', at: AT });
    expect(events).toEqual([]);
    expect(metrics).toEqual([]);
  });
});
