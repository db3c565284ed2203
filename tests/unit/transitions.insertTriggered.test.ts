// Covers: src/transitions/queueInserted.ts
import { describe, expect, it } from '@jest/globals';
import type { ExecutionDoc } from '../../src/domain/execution.js';
import { createLogger } from '../../src/logger.js';
import type { QueueEntry } from '../../src/queue/queueEntry.js';
import { insertTriggered } from '../../src/transitions/insertTriggered.js';
import { jobDoc } from '../support/fixtures.js';
import { publishedEvents } from '../support/workerFakes.js';

/** A manual trigger's insert → publish → enqueue: fakes, a fixed instant. */
describe('insertTriggered', () => {
  const now = new Date('2031-04-01T00:00:00.000Z');
  const job = jobDoc(new Date('2031-04-02T00:00:00.000Z'));

  function setup(enqueueFails = false) {
    const order: string[] = [];
    const inserted: ExecutionDoc[] = [];
    const entries: QueueEntry[] = [];
    const { events, published } = publishedEvents(() => order.push('publish'));
    const lines: string[] = [];
    const deps = {
      executions: {
        insert: async (doc: Omit<ExecutionDoc, 'tenantId'>) => {
          order.push('insert');
          const stored = { ...doc, tenantId: job.tenantId };
          inserted.push(stored);
          return stored;
        },
      },
      queues: {
        enqueue: async (added: QueueEntry[]) => {
          order.push('enqueue');
          if (enqueueFails) throw new Error('redis is away');
          entries.push(...added);
        },
      },
      events,
      logger: createLogger({}, 'warn', (line) => lines.push(line)),
    };
    return { deps, order, inserted, entries, events: published, lines };
  }

  it('inserts a MANUAL execution already QUEUED, announces SCHEDULED then QUEUED, then enqueues it due now with its job', async () => {
    const { deps, order, inserted, entries, events } = setup();

    const { execution, events: returned } = await insertTriggered(deps, job, '{"a":1}', now);

    expect(order).toEqual(['insert', 'publish', 'enqueue']);
    expect(inserted).toEqual([execution]);
    expect(execution).toMatchObject({
      trigger: 'MANUAL',
      status: 'QUEUED',
      queuedAt: now,
      scheduledFor: now,
      occurrenceKey: `manual:${execution._id.toHexString()}`,
      payloadJson: '{"a":1}',
      maxAttempts: job.retryPolicy.maxAttempts,
    });
    expect(events.map((e) => [e.previousStatus, e.status, !!e.execution])).toEqual([
      [null, 'SCHEDULED', true],
      ['SCHEDULED', 'QUEUED', true],
    ]);
    expect(returned).toEqual(events);
    expect(entries.map((e) => [e.id, e.dueAt, e.message.run?.status, e.message.job?.version])).toEqual([
      [execution._id.toHexString(), now, 'QUEUED', job.version],
    ]);
  });

  it('keeps the execution when the enqueue fails, leaving it to reconcile', async () => {
    const { deps, inserted, lines } = setup(true);
    const { execution } = await insertTriggered(deps, job, null, now);
    expect(inserted).toEqual([execution]);
    expect(lines.join('')).toContain('could not enqueue a manual execution; reconcile will');
  });
});
