import { describe, expect, it } from '@jest/globals';
import { ObjectId } from 'mongodb';
import { createLogger } from '../../src/logger.js';
import type { CancelledExecution, WaitingSelection } from '../../src/store/waitingCancels.js';
import { PENDING, cancelWaiting } from '../../src/transitions/cancelWaiting.js';
import { publishedEvents } from '../support/workerFakes.js';

/** The one cancel of waiting executions, the API's and the materialiser's: fakes, a fixed instant. */
describe('cancelWaiting', () => {
  const now = new Date('2031-04-01T00:00:00.000Z');
  const jobId = new ObjectId();
  const cancelled = (status: CancelledExecution['previousStatus'], attempt: number): CancelledExecution => ({
    execution: { _id: new ObjectId(), tenantId: 't', jobId, workload: 'IO_BOUND', attempt },
    previousStatus: status,
  });

  function setup(found: CancelledExecution[], removeFails = false) {
    const asked: { selection: WaitingSelection; to: string; reason: string }[] = [];
    const removed: string[] = [];
    const { events, published } = publishedEvents();
    const lines: string[] = [];
    const deps = {
      store: {
        cancelWaiting: async (selection: WaitingSelection, to: CancelledExecution['previousStatus'], reason: string) => {
          asked.push({ selection, to, reason });
          return found;
        },
      },
      queues: {
        remove: async (e: { executionId: string }, status: string, attempt: number) => {
          if (removeFails) throw new Error('redis is away');
          removed.push(`${e.executionId}/${status}/${attempt}`);
        },
      },
      events,
      logger: createLogger({}, 'warn', (line) => lines.push(line)),
    };
    return { deps, asked, removed, published, lines };
  }

  it('moves the selection to CANCELLED, removes each entry by the status it had, and publishes each change', async () => {
    const found = [cancelled('QUEUED', 0), cancelled('RETRYING', 2)];
    const { deps, asked, removed, published } = setup(found);
    const selection = { jobId, statuses: PENDING };

    const result = await cancelWaiting(deps, selection, 'job deleted', now);

    expect(asked).toEqual([{ selection, to: 'CANCELLED', reason: 'job deleted' }]);
    expect(removed).toEqual([`${found[0].execution._id.toHexString()}/QUEUED/0`, `${found[1].execution._id.toHexString()}/RETRYING/2`]);
    expect(published.map((e) => [e.executionId, e.previousStatus, e.status, e.occurredAt])).toEqual(
      found.map((c) => [c.execution._id.toHexString(), c.previousStatus, 'CANCELLED', now.toISOString()]),
    );
    expect(result).toEqual({ cancelled: found, events: published });
  });

  it('logs entries it could not remove and still publishes: MongoDB is the record', async () => {
    const { deps, published, lines } = setup([cancelled('QUEUED', 0)], true);
    await cancelWaiting(deps, { jobId, statuses: PENDING }, 'job paused', now);
    expect(published).toHaveLength(1);
    expect(lines.join('')).toContain('could not remove cancelled executions from the queue');
  });

  it('publishes nothing when nothing was cancelled', async () => {
    const { deps, published } = setup([]);
    expect(await cancelWaiting(deps, { jobId, statuses: PENDING }, 'job paused', now)).toEqual({ cancelled: [], events: [] });
    expect(published).toEqual([]);
  });
});
