import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { Redis } from 'ioredis';
import { loadConfig } from '../config.js';
import { startKairos } from '../kairos.js';
import { createLogger } from '../logger.js';
import { signDevToken } from '../auth/verifyToken.js';

/**
 * `npm run bench:lag`: start lag (first attempt's start minus scheduledFor) of `noop` one-off jobs,
 * with all roles in this process against the real services. Two cases: idle (jobs due one at a
 * time) and burst (BENCH_BURST jobs, default 2000, due in the same second). Prints percentiles.
 * Uses its own database and Redis prefix and removes both at the end.
 */
const burst = Number(process.env.BENCH_BURST ?? 2000);
const idleCount = Number(process.env.BENCH_IDLE ?? 50);
const name = `bench_lag_${randomBytes(4).toString('hex')}`;
const secret = randomBytes(24).toString('base64url');
const config = loadConfig({ ...process.env, JWT_SECRET: secret, PORT: '0', REDIS_PREFIX: name, ROLES: 'api,scheduler,worker', WORKER_IO_CONCURRENCY: '256' });
const kairos = await startKairos({ config, dbName: name, logger: createLogger({ bench: 'lag' }, 'warn') });
const token = signDevToken(secret, { tenantId: 'bench', role: 'admin' });
const mongo = await new MongoClient(config.mongoUrl).connect();
const executions = mongo.db(name).collection('executions');

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

async function lagsOf(prefix: string, count: number, timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  const jobIds = (await mongo.db(name).collection('jobs').find({ name: { $gte: prefix, $lt: prefix + '\uffff' } }, { projection: { _id: 1 } }).toArray()).map((j) => j._id);
  for (;;) {
    const done = await executions.find({ jobId: { $in: jobIds }, status: 'SUCCEEDED' }, { projection: { scheduledFor: 1, attempts: 1 } }).toArray();
    if (done.length >= count || Date.now() > deadline) {
      return done.map((e) => e.attempts[0].startedAt.getTime() - e.scheduledFor.getTime()).sort((a, b) => a - b);
    }
    await new Promise((r) => setTimeout(r, 250));
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
  report('idle', await lagsOf('idle-', idleCount, 3000 + idleCount * 200 + 10_000), idleCount);

  // Burst: every job due in the same second, created ahead of it.
  const due = new Date(Math.ceil((Date.now() + 20_000) / 1000) * 1000);
  const created = Date.now();
  for (let i = 0; i < burst; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, burst - i) }, (_, j) => createOneOff(new Date(due.getTime() + ((i + j) % 1000)), `burst-${i + j}`)));
  }
  process.stdout.write(`created ${burst} one-off jobs in ${Date.now() - created} ms, due within ${due.toISOString()} + 1 s\n`);
  if (Date.now() > due.getTime()) process.stdout.write('warning: creation ran past the due time; lags include creation\n');
  report(`burst of ${burst} in one second`, await lagsOf('burst-', burst, due.getTime() - Date.now() + 60_000), burst);
} finally {
  await kairos.stop();
  await mongo.db(name).dropDatabase();
  await mongo.close();
  const redis = new Redis(config.redisUrl);
  const keys = await redis.keys(`${name}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
}
