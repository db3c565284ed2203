import { setTimeout as sleep } from 'node:timers/promises';
import type { BulkOperationDoc } from '../domain/bulkOperation.js';

/** How often a progress watch reads its operation: progress is written about this often (a batch is a quarter second). */
export const PROGRESS_EVERY_MS = 250;

/**
 * A bulk operation as it progresses: `first` at once, then each read (every `everyMs`, from
 * whichever api process runs it) whose state or position changed, ending after the final state or
 * when the operation is gone. Not an async generator, so that `return()` (the subscriber left) stops
 * the reads at once instead of after the current sleep.
 */
export function watchBulkProgress(
  first: BulkOperationDoc,
  read: () => Promise<BulkOperationDoc | null>,
  everyMs = PROGRESS_EVERY_MS,
): AsyncIterableIterator<BulkOperationDoc> {
  const closed = new AbortController();
  let last: BulkOperationDoc | null = null;
  const next = async (): Promise<IteratorResult<BulkOperationDoc>> => {
    if (!last) return { value: (last = first), done: false };
    while (!closed.signal.aborted && last.state === 'RUNNING') {
      await sleep(everyMs, undefined, { signal: closed.signal }).catch(() => undefined);
      if (closed.signal.aborted) break;
      const current = await read();
      if (!current) break;
      if (current.state !== last.state || current.position !== last.position) return { value: (last = current), done: false };
    }
    closed.abort();
    return { value: undefined, done: true };
  };
  const iterator: AsyncIterableIterator<BulkOperationDoc> = {
    next,
    return: async () => {
      closed.abort();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
