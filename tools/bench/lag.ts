import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { MongoClient, ObjectId } from 'mongodb';
import { Redis } from 'ioredis';
import { dropRedisPrefix } from '../servers/dropRedisPrefix.js';
import { loadConfig } from '#kairos/config.js';
import { startKairos } from '#kairos/kairos.js';
import { createLogger } from '#kairos/logger.js';
import { signDevToken } from '#kairos/auth/verifyToken.js';
import { JobStore } from '#kairos/store/jobStore.js';
import { ExecutionStore } from '#kairos/store/executionStore.js';
import { parseNewJob } from '#kairos/jobs/parseJobInput.js';
import { BUILTIN_HANDLERS } from '#kairos/workers/handlers/builtins.js';
import { DueIndex } from '#kairos/scheduler/dueIndex.js';

const BUILTIN_NAMES = new Set(BUILTIN_HANDLERS.keys());

/**
 * `npm run bench:lag [-- --idle 50 --burst 2000]`: start lag (first attempt's start minus
 * scheduledFor) of `noop` one-off jobs, with all roles in this process against the real services.
 * Two cases, each its own tenant: idle (jobs due one at a time) and burst (jobs due in the same
 * second). Prints percentiles. Uses its own database and Redis prefix and removes both at the end.
 */
const { values } = parseArgs({ options: { idle: { type: 'string', default: '50' }, burst: { type: 'string', default: '2000' } } });
const idleCount = Number(values.idle);
const burst = Number(values.burst);
const name = `bench_lag_${randomBytes(4).toString('hex')}`;
const secret = randomBytes(24).toString('base64url');
// Start lag, not quotas, is measured: the burst's tenant may run it all at once.
const config = loadConfig(undefined, {
  JWT_SECRET: secret,
  PORT: '0',
  // Every process serves /metrics on its own port: a free one, beside a running `npm start`.
  METRICS_PORT: '0',
  REDIS_PREFIX: name,
  ROLES: 'api,scheduler,worker',
  DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '1000000',
});
const kairos = await startKairos({ config, dbName: name, logger: createLogger({ bench: 'lag' }, 'warn') });
const token = signDevToken(secret, { tenantId: 'bench-idle', role: 'admin' });
const mongo = await new MongoClient(config.mongoUrl).connect();
const db = mongo.db(name);

async function createOneOff(runAt: Date, label: string): Promise<void> {
  const response = await fetch(kairos.url!, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({
      query: 'mutation($i: CreateJobInput!) { createJob(input: $i) { job { id } } }',
      variables: { i: { name: label, schedule: { runAt: runAt.toISOString() }, target: { handler: 'noop' } } },
    }),
  });
  const body = (await response.json()) as { errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
}

/** Start lags of the tenant's executions once `count` succeeded; polls rarely to stay out of the measurement. */
async function lagsOf(tenant: string, count: number, timeoutMs: number, pollMs: number): Promise<number[]> {
  const executions = new ExecutionStore(db, tenant);
  const window: [Date, Date] = [new Date(0), new Date(Date.now() + 24 * 3600_000)];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const counts = await executions.countByStatus(...window, null);
    const succeeded = counts.find((c) => c.status === 'SUCCEEDED')?.count ?? 0;
    if (succeeded >= count || Date.now() > deadline) {
      return (await executions.startLags(...window, null, count)).sort((a, b) => a - b);
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

function report(label: string, lags: number[], expected: number): void {
  const pct = (p: number) => lags[Math.min(lags.length - 1, Math.ceil((p / 100) * lags.length) - 1)];
  process.stdout.write(
    `${label}: ${lags.length}/${expected} started; start lag ms p50=${pct(50)} p90=${pct(90)} p99=${pct(99)} max=${lags[lags.length - 1]} min=${lags[0]}\n`,
  );
}

try {
  // Idle: one job due every 200 ms, created well ahead (within the look-ahead window).
  const start = Date.now() + 3000;
  await Promise.all(Array.from({ length: idleCount }, (_, i) => createOneOff(new Date(start + i * 200), `idle-${i}`)));
  report('idle', await lagsOf('bench-idle', idleCount, 3000 + idleCount * 200 + 10_000, 500), idleCount);

  // Burst: BENCH_BURST one-off jobs due within the same second, written straight to the store ahead
  // of time (creating them through the API takes longer than the look-ahead on FerretDB), so the
  // leader's sweep materialises them in batches and the queue releases them at their time.
  const due = new Date(Math.ceil((Date.now() + config.lookAheadMs + 10_000) / 1000) * 1000);
  const jobs = new JobStore(db, 'bench-burst');
  // Written like createJob writes: the due index first (see DueIndex), then MongoDB.
  const indexRedis = new Redis(config.redisUrl);
  const dueIndex = new DueIndex(indexRedis, name);
  const created = Date.now();
  for (let i = 0; i < burst; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, burst - i) }, async (_, j) => {
        const runAt = new Date(due.getTime() + ((i + j) % 1000));
        const definition = parseNewJob(
          { name: `burst-${i + j}`, schedule: { runAt }, target: { handler: 'noop' } },
          new Date(),
          BUILTIN_NAMES,
        );
        const _id = new ObjectId();
        await dueIndex.expect(_id, runAt);
        return jobs.insert({
          _id,
          ...definition,
          nameLower: definition.name,
          status: 'ACTIVE',
          scheduleCursor: runAt,
          lastRunAt: null,
          idempotencyKey: `auto:${_id.toHexString()}`,
          createdAt: new Date(),
          updatedAt: new Date(),
          version: 1,
        });
      }),
    );
  }
  await indexRedis.quit();
  process.stdout.write(`stored ${burst} one-off jobs in ${Date.now() - created} ms, all due in [${due.toISOString()}, +1 s)\n`);
  const lags = await lagsOf('bench-burst', burst, due.getTime() - Date.now() + 120_000, 3000);
  report(`burst of ${burst} due in one second`, lags, burst);
} finally {
  await kairos.stop();
  await db.dropDatabase();
  await mongo.close();
  const redis = new Redis(config.redisUrl);
  await dropRedisPrefix(redis, name);
  await redis.quit();
}
