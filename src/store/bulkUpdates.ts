import type { AnyBulkWriteOperation, Collection, Document } from 'mongodb';
import { isMongoUnavailable } from './mongo.js';

/** What a bulk of update statements changed. */
export interface BulkUpdateCounts {
  matchedCount: number;
  modifiedCount: number;
  /**
   * Whether each statement matched a document, in `ops` order; null when some did not and the one
   * bulk command (MongoDB) cannot tell which.
   */
  matched: boolean[] | null;
}

/**
 * Sends update statements (updateOne / updateMany) either as one unordered bulk command
 * (`oneByOne` false: MongoDB) or each as its own command, all at once through the driver's pool
 * (`oneByOne` true: FerretDB 1.x). FerretDB keeps every update statement's PostgreSQL query open
 * until its whole command ends and takes a second pooled connection to write, so a command of n
 * statements holds n + 1 connections; a few such commands at once exhaust its pool and it deadlocks
 * for good (the chaos run's MongoDB pause showed it). One statement per command holds at most two,
 * and the driver's pool bounds how many are in flight (docs/architecture.md, "FerretDB").
 *
 * Waits for every statement; if some failed, throws after the rest settled (an unavailable-server
 * error first, so callers can tell a retryable outage from a statement that failed).
 */
export async function bulkUpdate<T extends Document>(
  collection: Collection<T>,
  ops: AnyBulkWriteOperation<T>[],
  oneByOne: boolean,
  /** With `oneByOne`, how many statements are in flight at most (default: all, the driver's pool bounds them). */
  inFlight = Infinity,
): Promise<BulkUpdateCounts> {
  if (ops.length === 0) return { matchedCount: 0, modifiedCount: 0, matched: [] };
  if (!oneByOne) {
    const result = await collection.bulkWrite(ops, { ordered: false });
    // Every statement matched at least one document exactly when the total reaches their number (for updateOne statements).
    const matched = result.matchedCount >= ops.length ? ops.map(() => true) : null;
    return { matchedCount: result.matchedCount, modifiedCount: result.modifiedCount, matched };
  }
  const settled: PromiseSettledResult<Awaited<ReturnType<Collection<T>['bulkWrite']>>>[] = [];
  let next = 0;
  // Each lane sends its next statement when its last one has settled, in `ops` order.
  const lanes = Array.from({ length: Math.min(inFlight, ops.length) }, async () => {
    while (next < ops.length) {
      const index = next++;
      [settled[index]] = await Promise.allSettled([collection.bulkWrite([ops[index]], { ordered: false })]);
    }
  });
  await Promise.all(lanes);
  const failures = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
  if (failures.length > 0) throw failures.find(isMongoUnavailable) ?? failures[0];
  const results = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  return {
    matchedCount: results.reduce((sum, r) => sum + r.matchedCount, 0),
    modifiedCount: results.reduce((sum, r) => sum + r.modifiedCount, 0),
    matched: results.map((r) => r.matchedCount > 0),
  };
}
