import type { Db, Filter, ObjectId } from 'mongodb';
import type { JobDoc, JobStatus } from '../domain/job.js';
import { labelPairs, type Label } from '../domain/labels.js';
import { externalKeyOf } from '../domain/externalId.js';
import type { PageRequest } from '../pagination/pageRequest.js';
import { collections, type Collections } from './collections.js';
import { isDuplicateKey } from './mongo.js';
import { keysetFilter } from './keyset.js';
import { deleteOnce } from './deleteOnce.js';

export interface JobListFilter {
  statuses?: JobStatus[] | null;
  namePrefix?: string | null;
  /** Jobs carrying every one of these labels (validated: domain/labels.ts, parseLabels). */
  labels?: readonly Label[] | null;
  /** The job with this external id. */
  externalId?: string | null;
}

/**
 * What an insert did: created the job, or found the job created first with the same idempotency key
 * (`job` is that one), or found another job holding the same external id (`job` is the holder).
 */
export type JobInsert = { job: JobDoc; created: true } | { job: JobDoc; created: false; sameKey: 'idempotencyKey' | 'externalId' };

/** Fields a lifecycle operation may change; `version` is the store's to increment. */
export type JobChange = Partial<Omit<JobDoc, '_id' | 'tenantId' | 'version' | 'createdAt' | 'idempotencyKey'>>;

/**
 * A tenant's jobs. Built per request with the tenant from the token; every query and insert
 * carries that tenant, so no caller can read or write another tenant's jobs.
 */
/** Ids per round trip when counting a tenant's jobs (countAll): about 2 s of FerretDB's work. */
const COUNT_BATCH = 10_000;

export class JobStore {
  private readonly c: Collections;

  constructor(
    db: Db,
    readonly tenantId: string,
  ) {
    this.c = collections(db);
  }

  private scoped(filter: Filter<JobDoc> = {}): Filter<JobDoc> {
    return { ...filter, tenantId: this.tenantId };
  }

  /** Inserts many new jobs in one command (the benchmark's setup; the API creates one at a time). */
  async insertMany(jobs: Omit<JobDoc, 'tenantId'>[]): Promise<void> {
    if (jobs.length > 0)
      await this.c.jobs.insertMany(
        jobs.map((job) => ({ ...job, tenantId: this.tenantId })),
        { ordered: false },
      );
  }

  /**
   * Inserts a job. When its idempotency key was used before, returns the job created first instead;
   * when another job holds its external id, returns that job (see JobInsert). Both are unique indexes,
   * so concurrent inserts cannot both pass.
   */
  async insert(job: Omit<JobDoc, 'tenantId'>): Promise<JobInsert> {
    const doc: JobDoc = { ...job, tenantId: this.tenantId };
    try {
      await this.c.jobs.insertOne(doc);
      return { job: doc, created: true };
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const first = await this.findByIdempotencyKey(job.idempotencyKey);
      if (first) return { job: first, created: false, sameKey: 'idempotencyKey' };
      const holder = doc.externalKey ? await this.c.jobs.findOne(this.scoped({ externalKey: doc.externalKey })) : null;
      if (holder) return { job: holder, created: false, sameKey: 'externalId' };
      throw error;
    }
  }

  /** The tenant's job created with this idempotency key (`auto:<id>` for one created without), or null. */
  async findByIdempotencyKey(key: string): Promise<JobDoc | null> {
    return this.c.jobs.findOne(this.scoped({ idempotencyKey: key }));
  }

  /** The tenant's job with this external id, or null. */
  async findByExternalId(externalId: string): Promise<JobDoc | null> {
    return this.c.jobs.findOne(this.scoped({ externalKey: externalKeyOf(externalId) }));
  }

  /**
   * The ids of the tenant's jobs that `filter` matches, at most `limit` (an executions filter by
   * label or external id reads them, then the executions of those jobs).
   */
  async idsMatching(filter: JobListFilter, limit: number): Promise<ObjectId[]> {
    const rows = await this.c.jobs
      .find<Pick<JobDoc, '_id'>>(this.listFilter(filter), { projection: { _id: 1 } })
      .limit(limit)
      .toArray();
    return rows.map((row) => row._id);
  }

  async findById(id: ObjectId): Promise<JobDoc | null> {
    return this.c.jobs.findOne(this.scoped({ _id: id }));
  }

  async findByIds(ids: readonly ObjectId[]): Promise<JobDoc[]> {
    return this.c.jobs.find(this.scoped({ _id: { $in: [...ids] } })).toArray();
  }

  /**
   * Compare-and-set on `version`: applies `set` and increments the version only if the job is still
   * at `expectedVersion`. Returns the job as written, or null when it changed meanwhile or is gone.
   */
  async updateIfVersion(id: ObjectId, expectedVersion: number, set: JobChange): Promise<JobDoc | null> {
    return this.c.jobs.findOneAndUpdate(
      this.scoped({ _id: id, version: expectedVersion }),
      // An undefined value would be stored as null: leave such fields alone instead.
      { $set: { ...definedOnly(set), version: expectedVersion + 1 } },
      { returnDocument: 'after' },
    );
  }

  /** Deletes the job; returns it as it was (for its change record), or null when there was none or a concurrent delete took it (deleteOnce). */
  async deleteById(id: ObjectId): Promise<JobDoc | null> {
    return deleteOnce(this.c.jobs, this.scoped({ _id: id }));
  }

  async count(filter: JobListFilter = {}): Promise<number> {
    return this.c.jobs.countDocuments(this.listFilter(filter));
  }

  /**
   * All the tenant's jobs, counted from a stream of their ids in batches: on FerretDB a count reads
   * every job of the tenant in one round trip, which past about 80 000 jobs outlasts the driver's
   * socket timeout (and then never succeeds); each batch here is its own round trip. The job counter's
   * seed and recount (rare) use it; on MongoDB it reads the tenant's index entries.
   */
  async countAll(): Promise<number> {
    let count = 0;
    for await (const _ of this.c.jobs.find(this.listFilter({}), { projection: { _id: 1 } }).batchSize(COUNT_BATCH)) count++;
    return count;
  }

  /** The distinct flow-control keys the tenant's jobs use (at most FLOW_LIMITS.keysPerTenant, by the checks that add one). */
  async flowControlKeys(): Promise<string[]> {
    const keys = await this.c.jobs.distinct('flowControl.key', this.scoped({}));
    return keys.filter((key): key is string => typeof key === 'string');
  }

  /** Newest first (createdAt, then _id); fetches `limit + 1` rows so the caller knows whether there is more. */
  async list(filter: JobListFilter, page: PageRequest): Promise<JobDoc[]> {
    const base = this.listFilter(filter);
    const direction = page.forward ? -1 : 1;
    // The tenant equality stays at the top level (FerretDB 1.24 pushes only those down to
    // PostgreSQL), the keyset conditions under $and beside it, as ExecutionStore.list does.
    const and = [...(base.$and ?? []), ...keysetFilter<JobDoc>('createdAt', page)];
    return this.c.jobs
      .find({ ...base, ...(and.length > 0 ? { $and: and } : {}) } as Filter<JobDoc>)
      .sort({ createdAt: direction, _id: direction })
      .limit(page.limit + 1)
      .toArray();
  }

  private listFilter(filter: JobListFilter): Filter<JobDoc> {
    const f: Filter<JobDoc> = {};
    if (filter.statuses?.length) f.status = { $in: filter.statuses };
    if (filter.namePrefix) {
      const prefix = filter.namePrefix.toLowerCase();
      f.nameLower = { $gte: prefix, $lt: prefix + '\uffff' };
    }
    if (filter.externalId) f.externalKey = externalKeyOf(filter.externalId);
    // One label as a top-level equality, which FerretDB pushes down to PostgreSQL (and MongoDB's
    // tenant_labels index serves, with the sort); the others it checks over what that one selects.
    const [first, ...others] = labelPairs(filter.labels ?? []);
    if (first !== undefined) f.labelPairs = first;
    if (others.length > 0) f.$and = others.map((pair) => ({ labelPairs: pair }));
    return this.scoped(f);
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
