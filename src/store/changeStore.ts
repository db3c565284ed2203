import type { Db, Filter, ObjectId } from 'mongodb';
import type { ChangeDoc } from '../domain/change.js';
import type { PageRequest } from '../pagination/pageRequest.js';
import { collections, type Collections } from './collections.js';
import { keysetFilter } from './keyset.js';

/** Which of the tenant's changes a page lists. */
export interface ChangeListFilter {
  /** One job's changes (kept after the job is deleted); absent or null: all of the tenant's. */
  jobId?: ObjectId | null;
  /** Whether the changes only ADMINs read are listed (see ADMIN_ONLY_TARGETS). */
  withAdminOnly: boolean;
}

/**
 * A tenant's change history. Built per request with the tenant from the token; every query and
 * insert carries that tenant. Pages are newest first by `at`: served by `tenant_job_at` or
 * `tenant_at` on MongoDB; on FerretDB 1.24 the tenant, job and `adminOnly` equalities reach
 * PostgreSQL and the keyset, sort and limit are done in FerretDB, over one tenant's (or one job's)
 * changes, which the purge bounds to the retention (one record per API mutation: far fewer than executions).
 */
export class ChangeStore {
  private readonly c: Collections;

  constructor(
    db: Db,
    readonly tenantId: string,
  ) {
    this.c = collections(db);
  }

  async insert(change: Omit<ChangeDoc, 'tenantId'>): Promise<ChangeDoc> {
    const doc: ChangeDoc = { ...change, tenantId: this.tenantId };
    await this.c.changes.insertOne(doc);
    return doc;
  }

  /** Newest first (at, then _id); fetches `limit + 1` rows so the caller knows whether there is more. */
  async list(filter: ChangeListFilter, page: PageRequest): Promise<ChangeDoc[]> {
    const direction = page.forward ? -1 : 1;
    // Equalities at the top level (FerretDB pushes only those down), the keyset under $and beside them, as JobStore.list does.
    const base: Filter<ChangeDoc> = { tenantId: this.tenantId };
    if (filter.jobId) base.jobId = filter.jobId;
    if (!filter.withAdminOnly) base.adminOnly = false;
    const keyset = keysetFilter<ChangeDoc>('at', page);
    return this.c.changes
      .find({ ...base, ...(keyset.length > 0 ? { $and: keyset } : {}) } as Filter<ChangeDoc>)
      .sort({ at: direction, _id: direction })
      .limit(page.limit + 1)
      .toArray();
  }
}
