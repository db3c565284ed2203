// Usage: node scripts/ping.mjs mongo|redis URL — exits 0 when the server answers a ping within 2 s.
import { MongoClient } from 'mongodb';
import { Redis } from 'ioredis';

const [kind, url] = process.argv.slice(2);
try {
  if (kind === 'mongo') {
    const client = new MongoClient(url, { serverSelectionTimeoutMS: 2000, connectTimeoutMS: 2000 });
    try {
      await client.db('admin').command({ ping: 1 });
    } finally {
      await client.close();
    }
  } else {
    const redis = new Redis(url, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => undefined);
    try {
      await redis.connect();
      await redis.ping();
    } finally {
      redis.disconnect();
    }
  }
  process.exit(0);
} catch {
  process.exit(1);
}
