import { describe, expect, it } from '@jest/globals';
import { endUnstarted, type EndUnstartedDeps } from '../../src/transitions/endUnstarted.js';
import { afterT0, queuedRun } from '../support/executionFixtures.js';
import { publishedEvents, silentLogger } from '../support/workerFakes.js';

const NOW = afterT0(3000);

const run = queuedRun();

/** The transition over fakes: the store's compare-and-set matches or not (`matches`). */
function setup(matches: boolean) {
  const writes: unknown[][] = [];
  const { events, published } = publishedEvents();
  const finished: unknown[][] = [];
  const deps: EndUnstartedDeps = {
    store: {
      endUnstarted: async (...args) => {
        writes.push(args);
        return matches;
      },
    },
    events,
    logger: silentLogger(),
    metrics: { executionFinished: (...args) => finished.push(args) },
  };
  return { deps, writes, events: published, finished };
}

describe('endUnstarted: waiting → SKIPPED or CANCELLED, before any attempt', () => {
  it('tells the alert sink of a SKIPPED end with its reason, and of nothing when the compare-and-set missed', async () => {
    const told: unknown[] = [];
    const alerts = { ended: (end: unknown) => told.push(end) };
    await endUnstarted({ ...setup(true).deps, alerts }, { run, end: { kind: 'skip', reason: 'overlap policy SKIP' } }, NOW);
    await endUnstarted({ ...setup(false).deps, alerts }, { run, end: { kind: 'skip', reason: 'overlap policy SKIP' } }, NOW);
    await endUnstarted({ ...setup(true).deps, alerts }, { run, end: { kind: 'cancel', reason: 'job deleted' } }, NOW);
    expect(told).toEqual([
      {
        tenantId: 'acme',
        jobId: '650000000000000000000002',
        executionId: '650000000000000000000001',
        status: 'SKIPPED',
        reason: 'overlap policy SKIP',
        at: NOW,
      },
    ]);
  });

  it("a skip writes SKIPPED with the overlap policy's reason, counts it finished and announces it", async () => {
    const { deps, writes, events, finished } = setup(true);
    const event = await endUnstarted(deps, { run, end: { kind: 'skip', reason: 'overlap policy SKIP' } }, NOW);
    expect(writes).toEqual([[run, 'SKIPPED', 'overlap policy SKIP', NOW]]);
    expect(finished).toEqual([['SKIPPED', 'SCHEDULE', 'acme']]);
    expect(events).toEqual([
      {
        tenantId: 'acme',
        executionId: '650000000000000000000001',
        jobId: '650000000000000000000002',
        previousStatus: 'QUEUED',
        status: 'SKIPPED',
        occurredAt: NOW.toISOString(),
      },
    ]);
    expect(event).toEqual(events[0]);
  });

  it('a cancel writes CANCELLED', async () => {
    const { deps, writes, events, finished } = setup(true);
    await endUnstarted(deps, { run, end: { kind: 'cancel', reason: 'job deleted' } }, NOW);
    expect(writes).toEqual([[run, 'CANCELLED', 'job deleted', NOW]]);
    expect(finished).toEqual([['CANCELLED', 'SCHEDULE', 'acme']]);
    expect(events[0]).toMatchObject({ previousStatus: 'QUEUED', status: 'CANCELLED' });
  });

  it('an execution that changed meanwhile is left alone: nothing counted or announced', async () => {
    const { deps, events, finished } = setup(false);
    expect(await endUnstarted(deps, { run, end: { kind: 'skip', reason: 'x' } }, NOW)).toBeNull();
    expect(events).toEqual([]);
    expect(finished).toEqual([]);
  });
});
