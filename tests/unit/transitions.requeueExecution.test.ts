import { describe, expect, it } from '@jest/globals';
import type { ExecutionDoc } from '../../src/domain/execution.js';
import { requeueExecution } from '../../src/transitions/requeueExecution.js';
import { executionDoc } from '../support/executionFixtures.js';
import { jobDoc } from '../support/fixtures.js';
import { enqueuedEntries, publishedEvents, silentLogger } from '../support/workerFakes.js';

/** The API's retry of a finished execution: fakes, a fixed instant. */
describe('requeueExecution', () => {
  const now = new Date('2031-04-01T00:00:00.000Z');
  const job = jobDoc(now);
  const failed = executionDoc(now, { tenantId: job.tenantId, jobId: job._id, status: 'FAILED', attempt: 3 });

  function setup(changedMeanwhile: boolean) {
    const asked: unknown[][] = [];
    const { queues, enqueued } = enqueuedEntries();
    const { events, published } = publishedEvents();
    const deps = {
      executions: {
        requeueForRetry: async (current: ExecutionDoc, to: ExecutionDoc['status'], attempts: number, at: Date) => {
          asked.push([current._id, to, attempts, at]);
          return changedMeanwhile ? null : { ...current, status: to, maxAttempts: current.attempt + attempts, queuedAt: at };
        },
      },
      queues,
      events,
      logger: silentLogger(),
    };
    return { deps, asked, entries: enqueued, events: published };
  }

  it('moves it to QUEUED for the job maxAttempts more, publishes FAILED → QUEUED, and enqueues it at once', async () => {
    const { deps, asked, entries, events } = setup(false);
    const result = await requeueExecution(deps, failed, job, now);
    expect(asked).toEqual([[failed._id, 'QUEUED', job.retryPolicy.maxAttempts, now]]);
    expect(result?.execution).toMatchObject({ status: 'QUEUED', maxAttempts: 3 + job.retryPolicy.maxAttempts });
    expect(events.map((e) => [e.previousStatus, e.status])).toEqual([['FAILED', 'QUEUED']]);
    expect(result?.events).toEqual(events);
    expect(entries.map((e) => [e.id, e.dueAt, e.message.run?.status])).toEqual([[failed._id.toHexString(), now, 'QUEUED']]);
  });

  it('is null, with nothing published or enqueued, when the execution changed since it was read', async () => {
    const { deps, entries, events } = setup(true);
    expect(await requeueExecution(deps, failed, job, now)).toBeNull();
    expect(events).toEqual([]);
    expect(entries).toEqual([]);
  });
});
