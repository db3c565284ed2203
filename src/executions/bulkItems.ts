import type { BulkItem, BulkOperationDoc } from '../domain/bulkOperation.js';

/** What became of one item of a bulk operation: done, or failed with the reason. */
export type BulkItemResult = { ok: true } | { ok: false; message: string };

/**
 * Handles a batch of one operation's items, in order, returning one result per item it handled: a
 * prefix of `items`, empty when it must wait (a bulk retry whose tenant has no waiting room left).
 */
export type BulkBatch = (operation: BulkOperationDoc, items: readonly BulkItem[], now: Date) => Promise<BulkItemResult[]>;

/** Items handled at once within a batch: each is a statement or two, the batch's pace is the runner's. */
export const ITEMS_AT_ONCE = 8;

/** `handle` over `items`, ITEMS_AT_ONCE at a time, the results in the items' order. */
export async function eachItem<T>(items: readonly T[], handle: (item: T) => Promise<BulkItemResult>): Promise<BulkItemResult[]> {
  const results: BulkItemResult[] = [];
  for (let i = 0; i < items.length; i += ITEMS_AT_ONCE) {
    results.push(...(await Promise.all(items.slice(i, i + ITEMS_AT_ONCE).map(handle))));
  }
  return results;
}
