import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import { Redis } from 'ioredis';
import { dropRedisPrefix } from '../servers/dropRedisPrefix.js';
import { loadConfig } from '#kairos/config.js';
import { connectMongo } from '#kairos/store/mongo.js';
import { formatTable, machine, progress, type ScaleTable } from './scaleSupport.js';
import { measureSchedules, schedulesTables, type SchedulesOptions } from './scaleSchedules.js';
import { historyTable, measureHistory, type HistoryOptions } from './scaleHistory.js';
import { createsTable, measureCreates, type CreatesOptions } from './scaleCreates.js';
import { measureWatchers, watchersTable, type WatchersOptions } from './scaleWatchers.js';

/**
 * `npm run bench:scale [-- --quick] [-- --only schedules,history,creates,watchers] [-- --sizes 1000,10000]`:
 * how Kairos behaves as its load grows in each direction, one table per dimension (size, figure,
 * ratio to the smallest size), against the shared Redis and MongoDB-wire server. Every case uses a
 * database and Redis prefix of its own, removed afterwards, and is bounded in time.
 * - Schedules (scaleSchedules.ts): N active one-day schedules spread over a day; the real
 *   scheduler (leader) and a worker in this process; start lag of the occurrences due in one minute
 *   and the sweep's cost per pass.
 * - History (scaleHistory.ts): a tenant's first and a deep `executions` page.
 * - Creating jobs (scaleCreates.ts): createJob in a tenant holding few jobs and one holding many.
 * - Watchers (scaleWatchers.ts): one api process with thousands of graphql-ws subscriptions while
 *   executions run.
 * Without --quick the whole run takes about 20 minutes; --quick about 4. Writes the tables as JSON under .data/bench/.
 */
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    sizes: { type: 'string' },
    'history-collection': { type: 'string' },
    subscriptions: { type: 'string' },
  },
});
const quick = values.quick;
const only = new Set((values.only ?? 'schedules,history,creates,watchers').split(','));
const config = loadConfig(undefined, { JWT_SECRET: randomBytes(24).toString('base64url') });

const schedulesOptions: SchedulesOptions = {
  sizes: (values.sizes ?? (quick ? '1000,10000' : '1000,10000,100000,1000000')).split(',').map(Number),
  windowMs: quick ? 20_000 : 60_000,
  probes: 60,
};
const historyOptions: HistoryOptions = {
  collection: Number(values['history-collection'] ?? (quick ? 100_000 : 1_000_000)),
  tenantSizes: quick ? [1000, 10_000] : [10_000, 100_000],
  pageSize: 20,
  deepPage: 50,
  samples: quick ? 20 : 50,
  budgetMs: quick ? 5_000 : 20_000,
};
const createsOptions: CreatesOptions = { sizes: quick ? [10, 10_000] : [10, 100_000], creates: quick ? 100 : 300, concurrency: 8 };
const watchersOptions: WatchersOptions = {
  sizes: (values.subscriptions ?? (quick ? '500,2000' : '1000,10000')).split(',').map(Number),
  perTenant: 100,
  subscriptionsPerSocket: 10,
  measureMs: quick ? 20_000 : 60_000,
  jobIntervalSeconds: 10,
};

const tables: ScaleTable[] = [];
/** Printed as each dimension ends, so a later failure keeps the figures so far. */
const done = (...made: ScaleTable[]) => {
  tables.push(...made);
  for (const table of made) process.stdout.write(formatTable(table));
};
const { client: mongo, ferretDb } = await connectMongo(config.mongoUrl);
const redis = new Redis(config.redisUrl);
const server = ferretDb ? 'FerretDB 1.24' : 'MongoDB';
progress(`bench:scale on ${machine()}, ${server}`);

/** A database and Redis prefix of its own for one case, removed afterwards. */
async function inOwnDatabase<T>(label: string, run: (name: string) => Promise<T>): Promise<T> {
  const name = `bench_scale_${label}_${randomBytes(3).toString('hex')}`;
  try {
    return await run(name);
  } finally {
    await mongo
      .db(name)
      .dropDatabase()
      .catch(() => undefined);
    await dropRedisPrefix(redis, name);
  }
}

try {
  if (only.has('schedules')) {
    const rows = [];
    for (const size of schedulesOptions.sizes) {
      rows.push(
        await inOwnDatabase(`sched${size}`, (name) => measureSchedules(config, mongo.db(name), redis, name, size, schedulesOptions)),
      );
    }
    done(...schedulesTables(rows, schedulesOptions));
  }
  if (only.has('history')) {
    // Its own client, with a socket timeout long enough to time the slowest page (Kairos gives up
    // after 15 s, and the API would answer INTERNAL_SERVER_ERROR there).
    const patient = await new MongoClient(config.mongoUrl, { maxPoolSize: 10, socketTimeoutMS: 300_000 }).connect();
    try {
      const result = await inOwnDatabase('history', (name) => measureHistory(patient.db(name), historyOptions));
      done(historyTable(result, historyOptions));
    } finally {
      await patient.close();
    }
  }
  if (only.has('creates')) {
    const result = await inOwnDatabase('creates', (name) => measureCreates(config, mongo.db(name), redis, name, createsOptions));
    done(createsTable(result, createsOptions));
  }
  if (only.has('watchers')) {
    const rows = [];
    for (const size of watchersOptions.sizes) {
      rows.push(await inOwnDatabase(`watch${size}`, (name) => measureWatchers(config, mongo.db(name), redis, name, size, watchersOptions)));
    }
    done(watchersTable(rows, watchersOptions));
  }
} finally {
  await redis.quit();
  await mongo.close();
}

process.stdout.write(`\nbench:scale${quick ? ' --quick' : ''}: ${server}, ${machine()} (the tables above)\n`);
mkdirSync('.data/bench', { recursive: true });
const file = `.data/bench/scale-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
writeFileSync(file, JSON.stringify({ quick, server, machine: machine(), tables }, null, 2));
process.stdout.write(`\n(tables also in ${file})\n`);
