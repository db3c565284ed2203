import { describe, expect, it } from '@jest/globals';
import { ObjectId } from 'mongodb';
import type { ExecutionEventMessage } from '../../src/events/executionEventBus.js';
import { createLogger } from '../../src/logger.js';
import { endUnstarted, type EndUnstartedDeps } from '../../src/transitions/endUnstarted.js';

const NOW = new Date('2030-01-01T00:00:03.000Z');

const run = {
  _id: new ObjectId('650000000000000000000001'),
  tenantId: 'acme',
  jobId: new ObjectId('650000000000000000000002'),
  status: 'QUEUED' as const,
  attempt: 0,
  trigger: 'SCHEDULE' as const,
};

/** The transition over fakes: the store's compare-and-set matches or not (`matches`). */
function setup(matches: boolean) {
  const writes: unknown[][] = [];
  const events: ExecutionEventMessage[] = [];
  const finished: unknown[][] = [];
  const deps: EndUnstartedDeps = {
    store: {
      endUnstarted: async (...args) => {
        writes.push(args);
        return matches;
      },
    },
    events: {
      publish: async (published) => {
        events.push(...published);
      },
    },
    logger: createLogger({}, 'silent'),
    metrics: { executionFinished: (...args) => finished.push(args) },
  };
  return { deps, writes, events, finished };
}

describe('endUnstarted: waiting → SKIPPED or CANCELLED, before any attempt', () => {
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
