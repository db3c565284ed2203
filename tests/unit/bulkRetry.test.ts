import { describe, expect, it } from '@jest/globals';
import { ObjectId } from 'mongodb';
import type { BulkItem, BulkOperationDoc } from '../../src/domain/bulkOperation.js';
import type { ExecutionDoc } from '../../src/domain/execution.js';
import { retryBatch, type BulkRetryDeps } from '../../src/executions/bulkRetry.js';
import { executionDoc } from '../support/executionFixtures.js';
import { jobDoc } from '../support/fixtures.js';
import { enqueuedEntries, publishedEvents, silentLogger } from '../support/workerFakes.js';

/** One batch of a bulk retry over fakes: an in-memory executions collection, a fixed instant. */
describe('retryBatch', () => {
  const now = new Date('2031-04-01T00:00:00.000Z');
  const job = jobDoc(now);
  const operationId = new ObjectId();
  const operation = { _id: operationId, tenantId: job.tenantId } as BulkOperationDoc;

  /** FAILED executions of the job, after `attempt` attempts each, and the items of their snapshot. */
  function setup(count: number, waiting = 0, maxWaitingExecutions = 100) {
    const docs = new Map<string, ExecutionDoc>();
    const items: BulkItem[] = [];
    for (let i = 0; i < count; i++) {
      const doc = executionDoc(now, { _id: new ObjectId(), tenantId: job.tenantId, jobId: job._id, status: 'FAILED', attempt: 1 });
      docs.set(doc._id.toHexString(), doc);
      items.push({ _id: doc._id, jobId: job._id, status: 'FAILED', attempt: 1 });
    }
    const { queues, enqueued } = enqueuedEntries();
    const { events } = publishedEvents();
    const cleared: string[] = [];
    const deps = {
      quotas: { of: async () => ({ maxWaitingExecutions }) },
      waiting: { count: async () => waiting, trim: async () => waiting },
      jobs: { findById: async (id: ObjectId) => (id.equals(job._id) ? job : null) },
      executions: {
        findById: async (id: ObjectId) => docs.get(id.toHexString()) ?? null,
        // The store's compare-and-set, on the in-memory documents.
        requeueForRetry: async (
          current: Pick<ExecutionDoc, '_id' | 'status' | 'attempt'>,
          to: ExecutionDoc['status'],
          attempts: number,
          at: Date,
          mark: ObjectId | null,
        ) => {
          const doc = docs.get(current._id.toHexString());
          if (!doc || doc.status !== current.status || doc.attempt !== current.attempt) return null;
          const after = { ...doc, status: to, maxAttempts: doc.attempt + attempts, queuedAt: at, bulkOperationId: mark };
          docs.set(doc._id.toHexString(), after);
          return after;
        },
      },
      queues,
      events,
      logger: silentLogger(),
      cancels: { clear: async (id: string) => void cleared.push(id) },
    } as unknown as BulkRetryDeps;
    return { deps, docs, items, enqueued, cleared };
  }

  it('requeues each item once, marked as the operation’s; the batch repeated (after a crash) counts them done again without a second round', async () => {
    const { deps, docs, items, enqueued, cleared } = setup(3);
    expect(await retryBatch(deps, operation, items, now)).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
    expect([...docs.values()].map((d) => [d.status, d.bulkOperationId])).toEqual(Array(3).fill(['QUEUED', operationId]));
    expect(cleared).toEqual(items.map((i) => i._id.toHexString()));
    expect(enqueued).toHaveLength(3);
    // Repeated: nothing changes but the queue entries, added again for those still QUEUED (the queue keeps one per id).
    expect(await retryBatch(deps, operation, items, now)).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
    expect([...docs.values()].map((d) => d.maxAttempts)).toEqual(Array(3).fill(1 + job.retryPolicy.maxAttempts));
    expect(new Set(enqueued.map((e) => e.id)).size).toBe(3);
  });

  it('leaves an execution that changed since the snapshot alone: retried or run by someone else, it is failed with the reason', async () => {
    const { deps, docs, items } = setup(3);
    const [first, second] = items;
    // Retried by a user and failed again: a later attempt, FAILED once more, not this operation's.
    docs.set(first._id.toHexString(), { ...docs.get(first._id.toHexString())!, attempt: 2 });
    docs.delete(second._id.toHexString());
    const results = await retryBatch(deps, operation, items, now);
    expect(results).toEqual([
      { ok: false, message: 'it changed since the operation started (now FAILED)' },
      { ok: false, message: 'it was deleted' },
      { ok: true },
    ]);
    expect(docs.get(first._id.toHexString())).toMatchObject({ status: 'FAILED', attempt: 2 });
  });

  it("requeues only as many as the tenant's waiting room holds, none when it is full", async () => {
    const some = setup(5, 97, 100);
    expect(await retryBatch(some.deps, operation, some.items, now)).toHaveLength(3);
    const full = setup(5, 100, 100);
    expect(await retryBatch(full.deps, operation, full.items, now)).toEqual([]);
    expect([...full.docs.values()].every((d) => d.status === 'FAILED')).toBe(true);
  });

  it('fails the items of a deleted job', async () => {
    const { deps, items } = setup(1);
    const orphan = { ...items[0], jobId: new ObjectId() };
    expect(await retryBatch(deps, operation, [orphan], now)).toEqual([{ ok: false, message: 'its job was deleted; it cannot run again' }]);
  });
});
