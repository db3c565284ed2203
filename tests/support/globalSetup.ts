import { MongoClient } from 'mongodb';
import { Redis } from 'ioredis';

// Jest loads global setup outside its module mapper, so this file imports nothing of ours (same defaults as env.ts).
const MONGO_URL = process.env.MONGO_URL || 'mongodb://127.0.0.1:27017/kairos';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** Fails the run at once, with a hint, when the services `npm run services` starts are not answering. */
export default async function globalSetup(): Promise<void> {
  const mongo = new MongoClient(MONGO_URL, { serverSelectionTimeoutMS: 3000 });
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await mongo.db('admin').command({ ping: 1 });
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(`Tests need MongoDB at ${MONGO_URL} and Redis at ${REDIS_URL}; run \`npm run services\` (${String(error)})`, {
      cause: error,
    });
  } finally {
    await mongo.close();
    await redis.quit().catch(() => redis.disconnect());
  }
}
