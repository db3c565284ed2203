import { MongoServerError, type Collection, type Db, type Document, type IndexDescription, type IndexDescriptionInfo } from 'mongodb';
import type { JobDoc } from '../domain/job.js';
import { jobExternalKey } from '../domain/externalId.js';
import { errorMessage, type Logger } from '../logger.js';
import { bulkUpdate } from './bulkUpdates.js';
import { collections } from './collections.js';

/**
 * The unique index on external ids. The one index Kairos starts without when MongoDB refuses it:
 * `jobs` sharded by `{ tenantId: 1, idempotencyKey: 1 }` (the recommended key before external ids)
 * cannot have it, as a unique index must start with the whole shard key, and the api then keeps
 * external ids single by checking under the tenant's create lock (docs/operating.md, sharding).
 */
export const EXTERNAL_ID_INDEX = 'tenant_external';

/** Every index Kairos creates, per collection (tests/unit/indexCoverage.test.ts checks each serves a query). */
export const INDEXES: {
  jobs: IndexDescription[];
  executions: IndexDescription[];
  apiKeys: IndexDescription[];
  bulkOperations: IndexDescription[];
  changes: IndexDescription[];
  calendars: IndexDescription[];
  alertChannels: IndexDescription[];
  alertRules: IndexDescription[];
  alerts: IndexDescription[];
} = {
  jobs: [
    { key: { status: 1, scheduleCursor: 1 }, name: 'due' },
    { key: { tenantId: 1, createdAt: -1, _id: -1 }, name: 'tenant_created' },
    { key: { tenantId: 1, nameLower: 1 }, name: 'tenant_name' },
    { key: { tenantId: 1, idempotencyKey: 1 }, name: 'tenant_idempotency', unique: true },
    // The jobs naming a calendar (its update copies its windows to them; its delete is refused while there are any).
    { key: { tenantId: 1, calendarNames: 1 }, name: 'tenant_calendar_names' },
    // An external id names one job of its tenant (jobs without one hold `auto:<id>`: domain/externalId.ts).
    // Left out, with a warning, where the shard key rules it out (see createEach).
    { key: { tenantId: 1, externalKey: 1 }, name: EXTERNAL_ID_INDEX, unique: true },
    // Multikey: one entry per label (`key=value`), then the list's order, so a page by label reads one page.
    { key: { tenantId: 1, labelPairs: 1, createdAt: -1, _id: -1 }, name: 'tenant_labels' },
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
  // A tenant's channels and rules are read whole (at most ALERT_LIMITS of them).
  alertChannels: [{ key: { tenantId: 1, createdAt: -1, _id: -1 }, name: 'tenant_created' }],
  alertRules: [{ key: { tenantId: 1, createdAt: -1, _id: -1 }, name: 'tenant_created' }],
  alerts: [
    { key: { tenantId: 1, raisedAt: -1, _id: -1 }, name: 'tenant_raised' },
    { key: { tenantId: 1, jobId: 1, raisedAt: -1, _id: -1 }, name: 'tenant_job_raised' },
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
  await fillExternalKeys(c.jobs, options.rangeIndexes === false);
  await Promise.all([
    createEach(c.jobs, wanted(INDEXES.jobs), options.logger),
    createEach(c.executions, wanted(INDEXES.executions), options.logger),
    createEach(c.apiKeys, wanted(INDEXES.apiKeys), options.logger),
    createEach(c.bulkOperations, wanted(INDEXES.bulkOperations), options.logger),
    createEach(c.changes, wanted(INDEXES.changes), options.logger),
    createEach(c.calendars, wanted(INDEXES.calendars), options.logger),
    createEach(c.alertChannels, wanted(INDEXES.alertChannels), options.logger),
    createEach(c.alertRules, wanted(INDEXES.alertRules), options.logger),
    createEach(c.alerts, wanted(INDEXES.alerts), options.logger),
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
  /** Where ensureIndexes warns that it went on without the external-id index (see EXTERNAL_ID_INDEX). */
  logger?: Pick<Logger, 'warn'>;
}

/**
 * One createIndex call per index: FerretDB 1.24 drops the connection (a panic on its side) when
 * one createIndexes call names several indexes that all exist already, i.e. on every restart.
 */
async function createEach<T extends Document>(
  collection: Collection<T>,
  indexes: IndexDescription[],
  logger: Pick<Logger, 'warn'> | undefined,
): Promise<void> {
  for (const { key, ...options } of indexes) {
    try {
      await collection.createIndex(key, options);
    } catch (error) {
      // Every other failure (and this one for any other index) stops the start, as before.
      if (options.name !== EXTERNAL_ID_INDEX || !isShardKeyConflict(error)) throw error;
      logger?.warn(
        `jobs is sharded by a key the unique index ${EXTERNAL_ID_INDEX} does not start with; going on without it: ` +
          'external ids are kept single by the api under the tenant lock only (best effort while Redis is unreachable). ' +
          'To have MongoDB enforce them, reshard jobs to { tenantId: 1 } (docs/operating.md, "MongoDB: replica set and sharding")',
        { collection: collection.collectionName, index: EXTERNAL_ID_INDEX, error: errorMessage(error) },
      );
    }
  }
}

/**
 * True for MongoDB's refusal of a unique index that does not start with the collection's shard key:
 * code 67 (CannotCreateIndex), whose message names the shard key pattern ("cannot create unique index
 * over … with shard key pattern …"). CannotCreateIndex has other causes (a bad option, too many
 * indexes), which the message tells apart.
 */
export function isShardKeyConflict(error: unknown): boolean {
  if (!(error instanceof MongoServerError)) return false;
  const cannotCreate = error.code === 67 || error.codeName === 'CannotCreateIndex';
  return cannotCreate && /shard key/i.test(error.message);
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

/** Jobs given their external key per round of the fill below. */
const FILL_BATCH = 1000;

/**
 * Databases written before jobs had external ids have jobs without `externalKey`, which MongoDB's
 * unique `tenant_external` index would count as one null per tenant and refuse to build. Such a
 * database is recognised by the index's absence (so a current one costs one listIndexes): each job
 * without the field gets `auto:<its id>`, in batches (`oneByOne` on FerretDB, see bulkUpdate), before
 * the index is created. Idempotent, and safe from several processes at once (each sets the same value).
 * Where the shard key rules the index out, each start reads once more, finding nothing after the first.
 */
async function fillExternalKeys(jobs: Collection<JobDoc>, oneByOne: boolean): Promise<void> {
  const existing: IndexDescriptionInfo[] = await jobs.indexes().catch(() => []);
  if (existing.some((index) => index.name === EXTERNAL_ID_INDEX)) return;
  for (;;) {
    const batch = await jobs
      .find<Pick<JobDoc, '_id'>>({ externalKey: { $exists: false } }, { projection: { _id: 1 } })
      .limit(FILL_BATCH)
      .toArray();
    if (batch.length === 0) return;
    await bulkUpdate(
      jobs,
      batch.map(({ _id }) => ({ updateOne: { filter: { _id }, update: { $set: { externalKey: jobExternalKey(null, _id) } } } })),
      oneByOne,
      8,
    );
  }
}
