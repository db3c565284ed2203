import { describe, expect, it } from '@jest/globals';
import type { ExecutionEventMessage } from '../../src/events/executionEventBus.js';
import type { ClaimRequest } from '../../src/store/runStore.js';
import { startAttempt, type StartAttemptDeps } from '../../src/transitions/startAttempt.js';
import { afterT0, queuedRun } from '../support/executionFixtures.js';
import { loggedLines, publishedEvents } from '../support/workerFakes.js';

const STARTED = afterT0(2500);

const run = queuedRun({ status: 'RETRYING', attempt: 1 });

/** The transition over fakes: a start writer answering `claim` (null: its compare-and-set missed). */
function setup(claim: string | null, publish?: () => Promise<void>) {
  const requests: ClaimRequest[] = [];
  const calls: string[] = [];
  const { events, published } = publishedEvents();
  const { logger, lines } = loggedLines();
  const deps: StartAttemptDeps<string> = {
    starts: {
      start: async (request) => {
        requests.push(request);
        return claim;
      },
    },
    queues: { leftWaiting: (workload, tenantId, entryId) => calls.push(`left waiting ${workload} ${tenantId} ${entryId}`) },
    events: publish ? { publish } : events,
    logger,
  };
  return { deps, requests, calls, events: published, lines };
}

const input = { run, entryId: 'entry-r1', workerId: 'worker-1', deadlineAfterMs: 40_000 };

describe('startAttempt: waiting → RUNNING', () => {
  it('writes the start as a compare-and-set on what the worker expects, leaves the waiting ones, and announces it', async () => {
    const { deps, requests, calls, events } = setup('claim-1');
    const started = await startAttempt(deps, input, STARTED);
    expect(requests).toEqual([
      { id: run._id, from: { status: 'RETRYING', attempt: 1 }, workerId: 'worker-1', startedAt: STARTED, deadlineAfterMs: 40_000 },
    ]);
    expect(calls).toEqual(['left waiting IO_BOUND acme entry-r1']);
    const event: ExecutionEventMessage = {
      tenantId: 'acme',
      executionId: '650000000000000000000001',
      jobId: '650000000000000000000002',
      previousStatus: 'RETRYING',
      status: 'RUNNING',
      occurredAt: STARTED.toISOString(),
      attempt: { number: 2, workerId: 'worker-1' },
    };
    expect(events).toEqual([event]);
    expect(started).toEqual({ claim: 'claim-1', event });
  });

  it('a start whose compare-and-set missed (a stale picture) announces nothing and stays waiting', async () => {
    const { deps, calls, events } = setup(null);
    expect(await startAttempt(deps, input, STARTED)).toBeNull();
    expect(calls).toEqual([]);
    expect(events).toEqual([]);
  });

  it('a publish that fails is logged; the start stands', async () => {
    const { deps, lines } = setup('claim-1', async () => {
      throw new Error('Redis unreachable');
    });
    expect(await startAttempt(deps, input, STARTED)).toMatchObject({ claim: 'claim-1', event: { status: 'RUNNING' } });
    expect(lines).toEqual([expect.objectContaining({ msg: 'could not publish execution events', count: 1 })]);
  });
});
