import { describe, expect, it } from '@jest/globals';
import { BATCH_MS, batchSize, paceDelayMs } from '../../src/executions/bulkPacing.js';
import { record } from '../../src/executions/bulkRunner.js';
import { ObjectId } from 'mongodb';
import { BULK_ERROR_SAMPLE } from '../../src/domain/bulkOperation.js';

describe('bulk operation pacing', () => {
  it('takes a quarter second of items per batch, at least one', () => {
    expect(BATCH_MS).toBe(250);
    expect(batchSize(200)).toBe(50);
    expect(batchSize(1000)).toBe(250);
    expect(batchSize(3)).toBe(1);
    expect(batchSize(1)).toBe(1);
  });

  it('waits what the handled items were due to take, less what they took', () => {
    // 100 items at 200 a second are due to take 500 ms; 200 ms have passed.
    expect(paceDelayMs(100, 200, 10_000, 10_200)).toBe(300);
    // Behind the pace: no wait.
    expect(paceDelayMs(100, 200, 10_000, 10_600)).toBe(0);
    expect(paceDelayMs(0, 200, 10_000, 10_000)).toBe(0);
  });

  it('keeps an operation to its rate over many batches', () => {
    let now = 0;
    let handled = 0;
    for (let i = 0; i < 40; i++) {
      handled += batchSize(200);
      now += 5; // each batch's work takes 5 ms
      now += paceDelayMs(handled, 200, 0, now);
    }
    // 2,000 items at 200 a second: ten seconds, give or take a batch's work.
    expect(handled).toBe(2000);
    expect(now).toBeGreaterThanOrEqual(10_000);
    expect(now).toBeLessThan(10_010);
  });
});

describe('recording a batch', () => {
  it('counts done and failed items, advances the position, and keeps the latest errors only', () => {
    const progress = { position: 5, done: 4, failed: 1, errors: [{ executionId: new ObjectId(), message: 'old' }] };
    const ids = Array.from({ length: 12 }, () => new ObjectId());
    const results = ids.map((_, i) => (i % 6 === 0 ? { ok: true as const } : { ok: false as const, message: `m${i}` }));
    record(progress, results, ids);
    expect(progress.position).toBe(17);
    expect(progress.done).toBe(6);
    expect(progress.failed).toBe(11);
    expect(progress.errors).toHaveLength(BULK_ERROR_SAMPLE);
    expect(progress.errors.at(-1)).toEqual({ executionId: ids[11], message: 'm11' });
  });
});
