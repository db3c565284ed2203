import type { Db, Filter, ObjectId } from 'mongodb';
import type { AlertDoc } from '../domain/alert.js';
import type { PageRequest } from '../pagination/pageRequest.js';
import { collections, type Collections } from './collections.js';
import { keysetFilter } from './keyset.js';

/** A tenant's alerts as recorded, newest first. Built per request with the tenant from the token. */
export class AlertStore {
  private readonly c: Collections;

  constructor(
    db: Db,
    readonly tenantId: string,
  ) {
    this.c = collections(db);
  }

  /** A page of the tenant's alerts (of one job when `jobId` is given), by raisedAt then _id, `limit + 1` rows. */
  async list(filter: { jobId?: ObjectId | null }, page: PageRequest): Promise<AlertDoc[]> {
    const direction = page.forward ? -1 : 1;
    // The equalities stay at the top level (FerretDB 1.24 pushes only those down), the keyset under $and.
    const keyset = keysetFilter<AlertDoc>('raisedAt', page);
    const base: Filter<AlertDoc> = { tenantId: this.tenantId, ...(filter.jobId ? { jobId: filter.jobId } : {}) };
    return this.c.alerts
      .find({ ...base, ...(keyset.length > 0 ? { $and: keyset } : {}) } as Filter<AlertDoc>)
      .sort({ raisedAt: direction, _id: direction })
      .limit(page.limit + 1)
      .toArray();
  }
}
