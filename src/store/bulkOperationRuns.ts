import type { Db, ObjectId } from 'mongodb';
import { chunkId, type BulkItem, type BulkItemError, type BulkOperationDoc, type BulkOperationStatus } from '../domain/bulkOperation.js';
import { collections, type Collections } from './collections.js';

/** How far a run got: what the runner records after each batch. */
export interface BulkProgress {
  position: number;
  done: number;
  failed: number;
  errors: BulkItemError[];
}

/**
 * The bulk operations as the api processes' runners see them, across tenants (like the scheduler's
 * store): which are RUNNING, their snapshots, and their progress. Each write is a compare-and-set
 * on RUNNING, so a finished operation stays finished.
 */
export class BulkOperationRuns {
  private readonly c: Collections;

  constructor(db: Db) {
    this.c = collections(db);
  }

  /** The RUNNING operations, oldest first, at most `limit` (an equality FerretDB pushes down; few are ever running). */
  async running(limit: number): Promise<BulkOperationDoc[]> {
    return this.c.bulkOperations.find({ state: 'RUNNING' }).sort({ createdAt: 1 }).limit(limit).toArray();
  }

  async findById(id: ObjectId): Promise<BulkOperationDoc | null> {
    return this.c.bulkOperations.findOne({ _id: id });
  }

  /** The operation's snapshot, in order: one read per chunk, each by its _id (an `$in` FerretDB would answer by a scan). */
  async items(operation: Pick<BulkOperationDoc, '_id' | 'tenantId' | 'chunks'>): Promise<BulkItem[]> {
    const items: BulkItem[] = [];
    for (let n = 0; n < operation.chunks; n++) {
      const chunk = await this.c.bulkOperationItems.findOne({ _id: chunkId(operation._id, n), tenantId: operation.tenantId });
      if (chunk) items.push(...chunk.items);
    }
    return items;
  }

  /** Records `progress` on a RUNNING operation; false when it is no longer RUNNING. */
  async recordProgress(id: ObjectId, progress: BulkProgress, now: Date): Promise<boolean> {
    const result = await this.c.bulkOperations.updateOne({ _id: id, state: 'RUNNING' }, { $set: { ...progress, updatedAt: now } });
    return result.matchedCount > 0;
  }

  /**
   * Ends a RUNNING operation with `state` (and `reason` when it FAILED), its progress as of the end,
   * then drops its items, which nothing reads again (one delete per chunk, by _id).
   */
  async finish(
    operation: Pick<BulkOperationDoc, '_id' | 'tenantId' | 'chunks'>,
    end: { state: Exclude<BulkOperationStatus, 'RUNNING'>; reason: string | null },
    progress: BulkProgress,
    now: Date,
  ): Promise<void> {
    const result = await this.c.bulkOperations.updateOne(
      { _id: operation._id, state: 'RUNNING' },
      { $set: { ...progress, state: end.state, reason: end.reason, finishedAt: now, updatedAt: now } },
    );
    if (result.matchedCount === 0) return;
    for (let n = 0; n < operation.chunks; n++) {
      await this.c.bulkOperationItems.deleteOne({ _id: chunkId(operation._id, n), tenantId: operation.tenantId });
    }
  }
}
