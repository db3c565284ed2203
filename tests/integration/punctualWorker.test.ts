import { afterAll, describe, expect, it } from '@jest/globals';
import { Queue, type Job } from 'bullmq';
import { PunctualWorker } from '../../src/workers/punctualWorker.js';
import { REDIS_URL } from '../support/env.js';
import { dropTestState, uniqueName } from '../support/harness.js';
import { waitUntil } from '../support/waitFor.js';

/** Its blocking wait stretched to 5 s, so only the due marker can end it sooner. */
class LongBlockWorker<T> extends PunctualWorker<T> {
  protected override getBlockTimeout(blockUntil: number): number {
    const timeout = super.getBlockTimeout(blockUntil);
    return timeout > 0 ? 5 : timeout;
  }
}

describe('PunctualWorker (real Redis, fresh queue prefix)', () => {
  const prefix = uniqueName('punctual');
  afterAll(() => dropTestState(prefix, prefix));

  it("ends its wait for a delayed entry at the entry's due time, not at the blocking command's timeout", async () => {
    const connection = { url: REDIS_URL };
    const queue = new Queue('due', { connection, prefix });
    const lateByMs: number[] = [];
    const errors: Error[] = [];
    const worker = new LongBlockWorker(
      'due',
      async (entry: Job) => void lateByMs.push(Date.now() - entry.timestamp - (entry.opts.delay ?? 0)),
      { connection, prefix },
    );
    worker.on('error', (error) => errors.push(error));
    try {
      await worker.waitUntilReady();
      await queue.add('first', {}, { delay: 600 });
      await queue.add('second', {}, { delay: 1200 });
      // A plain BullMQ worker would take each only when its 5 s block ran out.
      await waitUntil('both entries taken', async () => (lateByMs.length === 2 ? lateByMs : undefined), 4000, 20);
      expect(Math.max(...lateByMs)).toBeLessThan(1000);
      expect(errors).toEqual([]);
    } finally {
      await worker.close();
      await queue.close();
    }
  });
});
