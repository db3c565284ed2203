import type { AnyBulkWriteOperation, Collection, Filter, ObjectId } from 'mongodb';
import { SKIPPED_STATUS, type ExecutionDoc } from '../domain/execution.js';
import { bulkUpdate } from './bulkUpdates.js';

/** A SKIPPED budget record cut down (scheduler/budgetSkips.ts trimSkip): its new count, or `to` null when none is left. */
export interface SkipRewrite {
  _id: ObjectId;
  /** The count it was read with: the write is a compare-and-set on it. */
  skippedCount: number;
  to: { skippedCount: number; skippedUntil: Date; reason: string } | null;
}

/**
 * Writes the cut-down records by `_id`, each a compare-and-set on the count it was read with (a
 * record another cut changed meanwhile is left as that one left it), one statement each; `scope`
 * adds the tenant where the caller is tenant-scoped.
 */
export async function rewriteSkips(
  executions: Collection<ExecutionDoc>,
  rewrites: readonly SkipRewrite[],
  now: Date,
  oneByOne: boolean,
  scope: (filter: Filter<ExecutionDoc>) => Filter<ExecutionDoc> = (filter) => filter,
): Promise<void> {
  const ops: AnyBulkWriteOperation<ExecutionDoc>[] = rewrites.map(({ _id, skippedCount, to }) => {
    const filter = scope({ _id, status: SKIPPED_STATUS, skippedCount });
    return to ? { updateOne: { filter, update: { $set: { ...to, updatedAt: now } } } } : { deleteOne: { filter } };
  });
  await bulkUpdate(executions, ops, oneByOne);
}
