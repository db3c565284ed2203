import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { MongoClient, ObjectId } from 'mongodb';
import { Redis } from 'ioredis';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { ensureIndexes } from '../store/indexes.js';
import { AuditStore } from '../store/auditStore.js';
import { SchedulerStore } from '../store/schedulerStore.js';
import { DueIndex } from '../scheduler/dueIndex.js';
import { sweepDueJobs } from '../scheduler/sweepDueJobs.js';
import type { MaterialiseDeps } from '../scheduler/materialise.js';
import { ExecutionQueues, QueueShards } from '../queue/executionQueues.js';
import { ExecutionEventBus } from '../events/executionEventBus.js';
import { DEFAULT_RETRY_POLICY } from '../domain/backoff.js';
import type { JobDoc } from '../domain/job.js';

/**
 * `npm run bench:scale [-- --quick] [-- --sizes 1000,10000,100000] [-- --passes 10]`: the leader's
 * sweep cost as the number of active schedules grows. For each size, a database of its own holds
 * that many one-day interval schedules spread evenly over the next day; the due index is built from
 * it, and the sweep runs once a second for `passes` seconds, materialising what falls due (the
 * executions are queued in Redis but no worker runs them). Prints, per size: the sweep's duration
 * (p50, max), and for comparison one range query `{status: ACTIVE, scheduleCursor <= horizon}` (what
 * the sweep asked before the due index), each with its ratio to the smallest size. Each database
 * and Redis prefix is removed afterwards.
 */
const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, sizes: { type: 'string' }, passes: { type: 'string', default: '10' } } });
const sizes = (values.sizes ?? (values.quick ? '1000,10000' : '1000,10000,100000')).split(',').map(Number);
const passes = Number(values.passes);
const config = loadConfig(undefined, { JWT_SECRET: randomBytes(24).toString('base64url') });
const logger = createLogger({ bench: 'scale' }, 'warn');
const DAY = 86_400_000;
const LOAD_CHUNK = 1000;

function job(cursor: Date, i: number): JobDoc {
  return {
    _id: new ObjectId(),
    tenantId: `t${i % 100}`,
    name: `s${i}`,
    nameLower: `s${i}`,
    description: null,
    schedule: { kind: 'INTERVAL', intervalSeconds: 86_400, timezone: 'UTC', jitterSeconds: 0 },
    target: { kind: 'HANDLER', handler: 'noop' },
    payloadJson: null,
    workload: 'IO_BOUND',
    timeoutSeconds: 60,
    retryPolicy: DEFAULT_RETRY_POLICY,
    overlapPolicy: 'ALLOW',
    misfirePolicy: 'RUN_ONCE',
    status: 'ACTIVE',
    scheduleCursor: cursor,
    lastRunAt: null,
    idempotencyKey: `auto:${i}`,
    createdAt: cursor,
    updatedAt: cursor,
    version: 1,
  };
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const mongo = await new MongoClient(config.mongoUrl).connect();
const redis = new Redis(config.redisUrl);
const rows: { size: number; load: number; rebuild: number; p50: number; max: number; due: number; range: number }[] = [];
try {
  for (const size of sizes) {
    const name = `bench_scale_${randomBytes(4).toString('hex')}`;
    const db = mongo.db(name);
    const queues = new ExecutionQueues({ url: config.redisUrl, maxRetriesPerRequest: null }, name, () => undefined, new QueueShards(config.queueShards));
    const events = new ExecutionEventBus(redis, name);
    try {
      await ensureIndexes(db);
      const start = Date.now() + config.lookAheadMs;
      const loadStarted = Date.now();
      for (let i = 0; i < size; i += LOAD_CHUNK) {
        const chunk = Array.from({ length: Math.min(LOAD_CHUNK, size - i) }, (_, j) => job(new Date(start + Math.floor(((i + j) * DAY) / size)), i + j));
        await db.collection<JobDoc>('jobs').insertMany(chunk, { ordered: false });
      }
      const load = Date.now() - loadStarted;
      const store = new SchedulerStore(db);
      const dueIndex = new DueIndex(redis, name);
      const rebuildStarted = Date.now();
      await dueIndex.rebuild(() => store.activeCursors());
      const rebuild = Date.now() - rebuildStarted;
      // The sweep's own cost is measured: every occurrence is within its tenant's budget.
      const budget = { charge: async (_tenantId: string, wanted: number) => ({ allowed: wanted, perMinute: Infinity }) };
      const deps: MaterialiseDeps = { store, dueIndex, queues, events, logger, random: Math.random, budget };
      const durations: number[] = [];
      let due = 0;
      for (let pass = 0; pass < passes; pass++) {
        const began = Date.now();
        const result = await sweepDueJobs(deps, new Date(), 1, { lookAheadMs: config.lookAheadMs, misfireThresholdMs: 10_000 });
        durations.push(Date.now() - began);
        due += result.jobs;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1000 - (Date.now() - began))));
      }
      const rangeStarted = Date.now();
      await new AuditStore(db).firstDueByRange(new Date(Date.now() + config.lookAheadMs), 100);
      const range = Date.now() - rangeStarted;
      durations.sort((a, b) => a - b);
      rows.push({ size, load, rebuild, p50: pct(durations, 50), max: durations[durations.length - 1], due, range });
      process.stderr.write(`size ${size} done\n`);
    } finally {
      await queues.close();
      await db.dropDatabase();
      const keys = await redis.keys(`${name}*`);
      if (keys.length) await redis.del(...keys);
    }
  }
} finally {
  await redis.quit();
  await mongo.close();
}

const base = rows[0];
const ratio = (v: number, b: number) => (b > 0 ? (v / b).toFixed(2) : '-');
process.stdout.write(`\nSchedules: the leader's sweep (one pass a second, ${passes} passes), active one-day schedules spread over a day\n`);
process.stdout.write('| schedules | sweep p50 ms | ratio | sweep max ms | ratio | jobs materialised | range query ms (old sweep) | ratio | load ms | index rebuild ms |\n|---|---|---|---|---|---|---|---|---|---|\n');
for (const r of rows) {
  process.stdout.write(`| ${r.size} | ${r.p50} | ${ratio(r.p50, base.p50)} | ${r.max} | ${ratio(r.max, base.max)} | ${r.due} | ${r.range} | ${ratio(r.range, base.range)} | ${r.load} | ${r.rebuild} |\n`);
}
