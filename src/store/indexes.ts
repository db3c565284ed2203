import type { Collection, Db, Document, IndexDescription, IndexDescriptionInfo } from 'mongodb';
import type { JobDoc } from '../domain/job.js';
import { collections } from './collections.js';

/** Every index Kairos creates, per collection (tests/unit/indexCoverage.test.ts checks each serves a query). */
export const INDEXES: {
  jobs: IndexDescription[];
  executions: IndexDescription[];
  apiKeys: IndexDescription[];
  bulkOperations: IndexDescription[];
  changes: IndexDescription[];
  calendars: IndexDescription[];
} = {
  jobs: [
    { key: { status: 1, scheduleCursor: 1 }, name: 'due' },
    { key: { tenantId: 1, createdAt: -1, _id: -1 }, name: 'tenant_created' },
    { key: { tenantId: 1, nameLower: 1 }, name: 'tenant_name' },
    { key: { tenantId: 1, idempotencyKey: 1 }, name: 'tenant_idempotency', unique: true },
    // The jobs naming a calendar (its update copies its windows to them; its delete is refused while there are any).
    { key: { tenantId: 1, calendarNames: 1 }, name: 'tenant_calendar_names' },
  ],
  executions: [
    { key: { tenantId: 1, occurrenceKey: 1 }, name: 'occurrence', unique: true },
    { key: { tenantId: 1, scheduledFor: -1, _id: -1 }, name: 'tenant_scheduled' },
    { key: { tenantId: 1, jobId: 1, scheduledFor: -1, _id: -1 }, name: 'tenant_job_scheduled' },
    { key: { status: 1, scheduledFor: 1 }, name: 'reconcile' },
    { key: { tenantId: 1, status: 1, finishedAt: 1 }, name: 'tenant_status_finished' },
  ],
  apiKeys: [
    { key: { secretHash: 1 }, name: 'secret_hash', unique: true },
    { key: { tenantId: 1, createdAt: -1, _id: -1 }, name: 'tenant_created' },
  ],
  bulkOperations: [
    // A client's operationId names one operation of its tenant: a repeated request finds it.
    { key: { tenantId: 1, operationId: 1 }, name: 'tenant_operation', unique: true },
    // The runners' look for RUNNING operations whose lease lapsed, across tenants.
    { key: { state: 1 }, name: 'state' },
  ],
  changes: [
    // A job's history page (Job.changes, and a deleted job's through changes(filter: { jobId })).
    { key: { tenantId: 1, jobId: 1, at: -1, _id: -1 }, name: 'tenant_job_at' },
    // The tenant's history page, and the purge (tenant, then at before the cutoff).
    { key: { tenantId: 1, at: -1, _id: -1 }, name: 'tenant_at' },
  ],
  calendars: [
    { key: { tenantId: 1, name: 1 }, name: 'tenant_name', unique: true },
    { key: { tenantId: 1, createdAt: -1, _id: -1 }, name: 'tenant_created' },
  ],
};

/**
 * Creates every index Kairos relies on (idempotent). Tenant-owned indexes start with `tenantId`,
 * except the ones the scheduler uses across tenants: the jobs' due-time index and the executions'
 * reconcile index, and the API keys' secret hash (looked up before the tenant is known).
 * No partial or sparse indexes (FerretDB 1.24 lacks them): a job created without an idempotency key
 * gets `auto:<its id>` so the unique key index still holds.
 */
export async function ensureIndexes(db: Db, options: EnsureIndexesOptions = {}): Promise<void> {
  const c = collections(db);
  const wanted = (indexes: IndexDescription[]) => (options.rangeIndexes === false ? indexes.filter((i) => i.unique) : indexes);
  await renameScheduleCursor(c.jobs);
  await Promise.all([
    createEach(c.jobs, wanted(INDEXES.jobs)),
    createEach(c.executions, wanted(INDEXES.executions)),
    createEach(c.apiKeys, wanted(INDEXES.apiKeys)),
    createEach(c.bulkOperations, wanted(INDEXES.bulkOperations)),
    createEach(c.changes, wanted(INDEXES.changes)),
    createEach(c.calendars, wanted(INDEXES.calendars)),
  ]);
}

export interface EnsureIndexesOptions {
  /**
   * Whether to create the indexes that serve ranges and sorts (every one but the unique ones, which
   * enforce idempotency). Default true. kairos.ts turns it off on FerretDB 1.24: it pushes only
   * equalities down to PostgreSQL, as a containment its btree indexes cannot serve (the GIN indexes of
   * scripts/ferretdb-pg-indexes.sql do), so there they were never read and cost every write: each
   * insert and update of an execution updated five of them.
   */
  rangeIndexes?: boolean;
}

/**
 * One createIndex call per index: FerretDB 1.24 drops the connection (a panic on its side) when
 * one createIndexes call names several indexes that all exist already, i.e. on every restart.
 */
async function createEach<T extends Document>(collection: Collection<T>, indexes: IndexDescription[]): Promise<void> {
  for (const { key, ...options } of indexes) await collection.createIndex(key, options);
}

/**
 * Databases written before the materialisation cursor got its own name stored it as `nextRunAt`,
 * indexed by `due`. Such a database is recognised by that index (so a current one costs one
 * listIndexes, not a scan): its jobs' field is renamed and the index dropped, to be created again
 * on `scheduleCursor`. Safe to run from several processes at once: both steps are idempotent.
 */
async function renameScheduleCursor(jobs: Collection<JobDoc>): Promise<void> {
  const existing: IndexDescriptionInfo[] = await jobs.indexes().catch(() => []);
  const old = existing.find((index) => index.name === 'due' && 'nextRunAt' in index.key);
  if (!old) return;
  await jobs.updateMany({ nextRunAt: { $exists: true } }, { $rename: { nextRunAt: 'scheduleCursor' } });
  await jobs.dropIndex('due').catch(() => undefined);
}
