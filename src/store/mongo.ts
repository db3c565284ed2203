import { MongoClient, MongoNetworkError, MongoServerSelectionError, type Db } from 'mongodb';

/**
 * Connects to MongoDB (or a MongoDB-wire server such as FerretDB). The caller owns the client and
 * closes it. `dbName` overrides the database named in the URL (tests use one database each).
 */
export async function connectMongo(url: string, dbName?: string): Promise<{ client: MongoClient; db: Db }> {
  // Every Kairos query is short: a socket silent for 15 s means a hung server (paused, partitioned),
  // and failing the operation lets the API answer and a worker keep its result to write again.
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 5000, connectTimeoutMS: 5000, socketTimeoutMS: 15_000, appName: 'kairos' });
  await client.connect();
  return { client, db: client.db(dbName) };
}

/** True for a duplicate-key write error, the signal that an idempotent insert already happened. */
export function isDuplicateKey(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}

/** True when MongoDB could not be reached (down, paused, partitioned): the operation may succeed later. */
export function isMongoUnavailable(error: unknown): boolean {
  return error instanceof MongoNetworkError || error instanceof MongoServerSelectionError;
}
