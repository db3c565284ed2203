import { MongoClient, MongoNetworkError, MongoServerSelectionError, type Db } from 'mongodb';

/**
 * The driver pool size used against FerretDB when the URL sets none. FerretDB 1.x takes up to two
 * PostgreSQL connections per command in flight (bulkUpdates.ts) and deadlocks for good when its
 * pool runs out, so the pools of all Kairos processes together must stay below its
 * `pool_max_conns`: 10 each lets seven processes share a pool of 80. Real MongoDB keeps the driver's default.
 */
export const FERRETDB_MAX_POOL_SIZE = 10;

/** True when a `buildInfo` reply comes from FerretDB (it adds `ferretdbVersion`; MongoDB does not). */
export function isFerretDb(buildInfo: Record<string, unknown>): boolean {
  return 'ferretdbVersion' in buildInfo || 'ferretdbFeatures' in buildInfo;
}

/** True when the connection string sets maxPoolSize itself (then it wins over the FerretDB cap). */
export function urlSetsPoolSize(url: string): boolean {
  return /[?&]maxPoolSize=/i.test(url);
}

/**
 * Connects to MongoDB (or a MongoDB-wire server such as FerretDB, recognised by its `buildInfo`
 * and given a pool of FERRETDB_MAX_POOL_SIZE unless the URL sets maxPoolSize). The caller owns the
 * client and closes it. `dbName` overrides the database named in the URL (tests use one database each).
 */
export async function connectMongo(url: string, dbName?: string): Promise<{ client: MongoClient; db: Db; ferretDb: boolean }> {
  const client = await newClient(url);
  // A server that refuses buildInfo is not FerretDB (which always answers it): keep the defaults.
  const ferretDb = isFerretDb(
    await client
      .db('admin')
      .command({ buildInfo: 1 })
      .catch(() => ({})),
  );
  if (!ferretDb || urlSetsPoolSize(url)) return { client, db: client.db(dbName), ferretDb };
  // A connected client's pool size is fixed, so reconnect with the cap; only one connection was open.
  await client.close();
  const capped = await newClient(url, FERRETDB_MAX_POOL_SIZE);
  return { client: capped, db: capped.db(dbName), ferretDb };
}

async function newClient(url: string, maxPoolSize?: number): Promise<MongoClient> {
  // Every Kairos query is short: a socket silent for 15 s means a hung server (paused, partitioned),
  // and failing the operation lets the API answer and a worker keep its result to write again.
  // Set in code, whatever the URL says: MongoDB is the record and Redis is rebuilt from it, so a write
  // Kairos acknowledged (a created job, a materialised occurrence, an attempt's end) must survive a
  // replica-set failover: majority writes are never rolled back. Reads go to the primary, which has
  // every acknowledged write: the scheduler's compare-and-sets, reconcile and the API's
  // read-after-write (create, then list) would go wrong on a lagging secondary (docs/operating.md, "MongoDB: replica set and sharding").
  const client = new MongoClient(url, {
    writeConcern: { w: 'majority' },
    readPreference: 'primary',
    serverSelectionTimeoutMS: 5000,
    connectTimeoutMS: 5000,
    socketTimeoutMS: 15_000,
    appName: 'kairos',
    ...(maxPoolSize === undefined ? {} : { maxPoolSize }),
  });
  return client.connect();
}

/** True for a duplicate-key write error, the signal that an idempotent insert already happened. */
export function isDuplicateKey(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}

/** True when MongoDB could not be reached (down, paused, partitioned): the operation may succeed later. */
export function isMongoUnavailable(error: unknown): boolean {
  return error instanceof MongoNetworkError || error instanceof MongoServerSelectionError;
}
