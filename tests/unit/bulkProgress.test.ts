import { describe, expect, it } from '@jest/globals';
import { ObjectId } from 'mongodb';
import type { BulkOperationDoc } from '../../src/domain/bulkOperation.js';
import { watchBulkProgress } from '../../src/executions/bulkProgress.js';

const at = new Date('2026-12-07T12:00:00Z');
const doc = (state: BulkOperationDoc['state'], position: number): BulkOperationDoc => ({
  _id: new ObjectId('65a000000000000000000001'),
  tenantId: 't1',
  operationId: 'op',
  kind: 'RETRY',
  state,
  reason: null,
  total: 3,
  position,
  done: position,
  failed: 0,
  errors: [],
  chunks: 1,
  createdAt: at,
  updatedAt: at,
  finishedAt: state === 'RUNNING' ? null : at,
});

/** A read that answers the given documents in turn, counting its calls. */
function reads(...answers: (BulkOperationDoc | null)[]) {
  const calls = { count: 0 };
  const read = async () => answers[Math.min(calls.count++, answers.length - 1)];
  return { read, calls };
}

describe('watchBulkProgress', () => {
  it('sends the operation at once, then only reads that changed its state or position, ending after the final state', async () => {
    const { read, calls } = reads(doc('RUNNING', 0), doc('RUNNING', 2), doc('RUNNING', 2), doc('SUCCEEDED', 3));
    const seen: string[] = [];
    for await (const d of watchBulkProgress(doc('RUNNING', 0), read, 1)) seen.push(`${d.state}:${d.position}`);
    expect(seen).toEqual(['RUNNING:0', 'RUNNING:2', 'SUCCEEDED:3']);
    expect(calls.count).toBe(4);
  });

  it('ends when the operation is gone, and reads nothing for one already finished', async () => {
    const gone = reads(null);
    const seen: number[] = [];
    for await (const d of watchBulkProgress(doc('RUNNING', 1), gone.read, 1)) seen.push(d.position);
    expect(seen).toEqual([1]);

    const finished = reads(doc('SUCCEEDED', 3));
    const iterator = watchBulkProgress(doc('FAILED', 2), finished.read, 1);
    expect((await iterator.next()).value?.state).toBe('FAILED');
    expect((await iterator.next()).done).toBe(true);
    expect(finished.calls.count).toBe(0);
  });

  it('stops reading as soon as the subscriber leaves, mid-wait', async () => {
    const { read, calls } = reads(doc('RUNNING', 0));
    const iterator = watchBulkProgress(doc('RUNNING', 0), read, 60_000);
    await iterator.next();
    const waiting = iterator.next();
    await iterator.return!();
    expect((await waiting).done).toBe(true);
    expect(calls.count).toBe(0);
  });
});
