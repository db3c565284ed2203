// Helpers for scripts/services.sh; each exits 0 on success, 1 on failure, within a few seconds.
//   node scripts/service.mjs ping mongo URL    the MongoDB-wire server answers a ping
//   node scripts/service.mjs ping redis URL    Redis answers a ping
//   node scripts/service.mjs redis-hz URL N    sets Redis' `hz` to at least N (see services.sh)
import { MongoClient } from 'mongodb';
import { Redis } from 'ioredis';

const [command, kind, url] = process.argv.slice(2);

async function withRedis(redisUrl, fn) {
  const redis = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}

try {
  if (command === 'ping' && kind === 'mongo') {
    const client = new MongoClient(url, { serverSelectionTimeoutMS: 2000, connectTimeoutMS: 2000 });
    try {
      await client.db('admin').command({ ping: 1 });
    } finally {
      await client.close();
    }
  } else if (command === 'ping' && kind === 'redis') {
    await withRedis(url, (redis) => redis.ping());
  } else if (command === 'redis-hz') {
    // argv: redis-hz URL N (kind holds the URL here)
    const wanted = Number(url);
    await withRedis(kind, async (redis) => {
      const [, current] = await redis.config('GET', 'hz');
      if (Number(current) < wanted) await redis.config('SET', 'hz', String(wanted));
    });
  } else {
    throw new Error(`unknown command: ${process.argv.slice(2).join(' ')}`);
  }
  process.exit(0);
} catch (error) {
  if (command === 'redis-hz') process.stderr.write(`could not set Redis hz: ${error.message}\n`);
  process.exit(1);
}
