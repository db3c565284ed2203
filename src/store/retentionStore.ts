import type { Collection, Db, Filter, ObjectId } from 'mongodb';
import { FINAL_STATUSES, type ExecutionStatus } from '../domain/execution.js';
import { collections, type Collections } from './collections.js';

/** Deletes per bulkWrite: a batch never holds the server for long. (FerretDB closes each delete's query before the next, unlike updates: see bulkUpdates.ts.) */
const DELETE_CHUNK = 20;

/**
 * The purge's queries: one tenant's finished executions that ended before a cutoff, and its change
 * records, alerts and finished bulk operations from before it. Executions are served by
 * the `tenant_status_finished` index on MongoDB; on FerretDB the tenant and status equalities
 * reach PostgreSQL and the date is compared in FerretDB. Only finished statuses are ever named,
 * so a waiting or running execution is never deleted, however old. Uses the caller's connection.
 */
export class RetentionStore {
  private readonly c: Collections;

  constructor(db: Db) {
    this.c = collections(db);
  }

  /**
   * Deletes up to `limit` of the tenant's executions in `status` that finished before `before`;
   * returns how many went. Found first, then deleted one by one by `_id` (in bulk): every statement
   * is an equality FerretDB pushes down, and a batch never holds the server for long.
   */
  async purgeBatch(tenantId: string, status: ExecutionStatus, before: Date, limit: number): Promise<number> {
    if (!FINAL_STATUSES.includes(status)) throw new Error(`refusing to purge ${status} executions: only finished ones go`);
    // The status is in each delete too: an execution retried since it was found is not deleted.
    return deleteFound(this.c.executions, { tenantId, status }, { finishedAt: { $lt: before } }, limit);
  }

  /**
   * Deletes up to `limit` of the tenant's change records made before `before`; returns how many went.
   * Served by `tenant_at` on MongoDB; on FerretDB the tenant equality reaches PostgreSQL and the date
   * is compared in FerretDB, over the tenant's changes (one per API mutation, bounded by this purge).
   */
  purgeChanges(tenantId: string, before: Date, limit: number): Promise<number> {
    return deleteFound(this.c.changes, { tenantId }, { at: { $lt: before } }, limit);
  }

  /** Deletes up to `limit` of the tenant's alerts raised before `before` (`tenant_raised`; on FerretDB as purgeChanges). */
  purgeAlerts(tenantId: string, before: Date, limit: number): Promise<number> {
    return deleteFound(this.c.alerts, { tenantId }, { raisedAt: { $lt: before } }, limit);
  }

  /**
   * Deletes up to `limit` of the tenant's bulk operations that finished before `before` (a RUNNING
   * one has no finishedAt, so it is never matched). A tenant has few: read through `tenant_operation`'s tenant prefix.
   */
  purgeBulkOperations(tenantId: string, before: Date, limit: number): Promise<number> {
    return deleteFound(this.c.bulkOperations, { tenantId }, { finishedAt: { $lt: before } }, limit);
  }
}

/**
 * Finds up to `limit` documents matching `equalities` and `range`, then deletes them by `_id` and
 * `equalities` in chunks (every delete an equality FerretDB pushes down; a document that no longer
 * has them, as an execution retried meanwhile, stays). Returns how many went.
 */
async function deleteFound<T extends { _id: ObjectId; tenantId: string }>(
  collection: Collection<T>,
  equalities: Filter<T>,
  range: Filter<T>,
  limit: number,
): Promise<number> {
  const rows = await collection
    .find({ ...equalities, ...range }, { projection: { _id: 1 } })
    .limit(limit)
    .batchSize(limit)
    .toArray();
  let deleted = 0;
  for (let start = 0; start < rows.length; start += DELETE_CHUNK) {
    const ops = rows.slice(start, start + DELETE_CHUNK).map((r) => ({ deleteOne: { filter: { ...equalities, _id: r._id } } }));
    deleted += (await collection.bulkWrite(ops, { ordered: false })).deletedCount;
  }
  return deleted;
}
