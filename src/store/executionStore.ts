import type { Db, Filter, ObjectId } from 'mongodb';
import type { ExecutionDoc, ExecutionStatus } from '../domain/execution.js';
import type { PageRequest } from '../pagination/pageRequest.js';
import { collections, type Collections } from './collections.js';
import { keysetFilter } from './keyset.js';

export interface ExecutionListFilter {
  jobId?: ObjectId | null;
  statuses?: ExecutionStatus[] | null;
  /** Inclusive. */
  scheduledAfter?: Date | null;
  /** Exclusive. */
  scheduledBefore?: Date | null;
}

/** A tenant's executions, the primary source of every monitoring query. Every query carries the tenant. */
export class ExecutionStore {
  private readonly c: Collections;

  constructor(db: Db, readonly tenantId: string) {
    this.c = collections(db);
  }

  private scoped(filter: Filter<ExecutionDoc> = {}): Filter<ExecutionDoc> {
    return { ...filter, tenantId: this.tenantId };
  }

  async insert(execution: Omit<ExecutionDoc, 'tenantId'>): Promise<ExecutionDoc> {
    const doc: ExecutionDoc = { ...execution, tenantId: this.tenantId };
    await this.c.executions.insertOne(doc);
    return doc;
  }

  async findById(id: ObjectId): Promise<ExecutionDoc | null> {
    return this.c.executions.findOne(this.scoped({ _id: id }));
  }

  async findByIds(ids: readonly ObjectId[]): Promise<ExecutionDoc[]> {
    return this.c.executions.find(this.scoped({ _id: { $in: [...ids] } })).toArray();
  }

  /** Newest first (scheduledFor, then _id); fetches `limit + 1` rows so the caller knows whether there is more. */
  async list(filter: ExecutionListFilter, page: PageRequest): Promise<ExecutionDoc[]> {
    const f: Filter<ExecutionDoc> = {};
    if (filter.jobId) f.jobId = filter.jobId;
    if (filter.statuses?.length) f.status = { $in: filter.statuses };
    if (filter.scheduledAfter || filter.scheduledBefore) {
      f.scheduledFor = {
        ...(filter.scheduledAfter ? { $gte: filter.scheduledAfter } : {}),
        ...(filter.scheduledBefore ? { $lt: filter.scheduledBefore } : {}),
      };
    }
    const direction = page.forward ? -1 : 1;
    return this.c.executions
      .find({ $and: [this.scoped(f), ...keysetFilter<ExecutionDoc>('scheduledFor', page)] } as Filter<ExecutionDoc>)
      .sort({ scheduledFor: direction, _id: direction })
      .limit(page.limit + 1)
      .toArray();
  }
}
