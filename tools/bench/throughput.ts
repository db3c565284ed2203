import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { MongoClient, ObjectId, type Db } from 'mongodb';
import { Redis } from 'ioredis';
import { dropRedisPrefix } from '../servers/dropRedisPrefix.js';
import { Queue, Worker } from 'bullmq';
import { Agenda } from 'agenda';
import { MongoBackend } from '@agendajs/mongo-backend';
import { loadConfig } from '#kairos/config.js';
import { signDevToken } from '#kairos/auth/verifyToken.js';
import { JobStore } from '#kairos/store/jobStore.js';
import { ExecutionStore } from '#kairos/store/executionStore.js';
import { parseNewJob } from '#kairos/jobs/parseJobInput.js';
import { BUILTIN_HANDLERS } from '#kairos/workers/handlers/builtins.js';
import { DueIndex } from '#kairos/scheduler/dueIndex.js';
import { spawnKairos, type KairosProcess } from '../servers/kairosProcess.js';
import { freePort } from '../servers/localServers.js';
import type { CommandCounts } from './commandCounter.js';
import { coresUsed, cpuByProcess } from './cpuByProcess.js';
import { formatBenchTable, type BenchRow } from './resultsTable.js';

/**
 * `npm run bench [-- --quick]`: raw BullMQ, plain Agenda 6 and Kairos side by side against the
 * same Redis and MongoDB-wire server in one run, each case in its own database and Redis prefix
 * (removed at the end). Prints one table with the ratios and writes it as JSON under .data/bench/.
 * Kairos runs as real processes (`node dist/main.js`) with a command counter preloaded, so its
 * MongoDB commands, documents written and Redis round trips per execution are counted inside it.
 */
const { values } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, only: { type: 'string' }, 'cpu-prof': { type: 'string' } },
});
const quick = values.quick;
/** `--only bullmq,agenda,kairos,idle`: run just these cases (for profiling one of them). */
const only = values.only ? new Set(values.only.split(',')) : null;
/** `--cpu-prof DIR`: each Kairos process writes a V8 CPU profile there when it stops (node --cpu-prof). */
const cpuProfDir = values['cpu-prof'] ? path.resolve(values['cpu-prof']) : null;
const sizes = quick
  ? {
      bullmq: 2000,
      agenda: 100,
      kairos: [
        { n: 500, split: false },
        { n: 500, split: true },
        { n: 1000, split: false },
        { n: 1000, split: false, flow: true },
      ],
      idle: 20,
    }
  : {
      bullmq: 10_000,
      agenda: 300,
      kairos: [
        { n: 2000, split: false },
        { n: 2000, split: true },
        { n: 10_000, split: true },
        { n: 5000, split: false },
        { n: 5000, split: false, flow: true },
      ],
      idle: 50,
    };
const CONCURRENCY = 64;
/** The flow-control case: its jobs spread over this many keys, each with this maxConcurrent. */
const FLOW_KEYS = 50;
const FLOW_MAX_CONCURRENT = 10;
const BUILTIN_NAMES = new Set(BUILTIN_HANDLERS.keys());
const run = `bench_${randomBytes(3).toString('hex')}`;
const secret = randomBytes(24).toString('base64url');
const base = loadConfig(undefined, { JWT_SECRET: secret });
const mongo = await new MongoClient(base.mongoUrl).connect();
const redis = new Redis(base.redisUrl);
const countsDir = path.join('.data', 'bench', run);
mkdirSync(countsDir, { recursive: true });
const cleanups: (() => Promise<unknown>)[] = [];

const rows: BenchRow[] = [];

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function lagFigures(lags: number[]): BenchRow['lagMs'] {
  const s = [...lags].sort((a, b) => a - b);
  return { p50: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99), max: s[s.length - 1] };
}

function databaseUrl(db: string): string {
  const url = new URL(base.mongoUrl);
  url.pathname = `/${db}`;
  return url.toString();
}

async function untilTrue(check: () => Promise<boolean>, timeoutMs: number, pollMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  return check();
}

/** 1. Raw BullMQ: N no-op jobs already waiting, one worker at Kairos' concurrency. */
async function benchBullmq(n: number): Promise<void> {
  const prefix = `${run}_bullmq`;
  const connection = { url: base.redisUrl, maxRetriesPerRequest: null };
  const queue = new Queue('noop', { connection, prefix });
  for (let i = 0; i < n; i += 1000) {
    await queue.addBulk(
      Array.from({ length: Math.min(1000, n - i) }, (_, j) => ({ name: 'noop', data: { i: i + j }, opts: { removeOnComplete: true } })),
    );
  }
  let done = 0;
  let finished!: () => void;
  const all = new Promise<void>((resolve) => (finished = resolve));
  const worker = new Worker('noop', async () => undefined, { connection, prefix, concurrency: CONCURRENCY, autorun: false });
  worker.on('completed', () => {
    if (++done === n) finished();
  });
  const start = Date.now();
  void worker.run();
  await all;
  const seconds = (Date.now() - start) / 1000;
  await worker.close();
  await queue.close();
  await dropRedisPrefix(redis, prefix);
  rows.push({ case: 'BullMQ raw', n, started: done, perSecond: n / seconds, settings: `concurrency ${CONCURRENCY}, removeOnComplete` });
}

/** 2. Plain Agenda 6 on the same MongoDB-wire server: N no-op jobs due at one instant. */
async function benchAgenda(n: number): Promise<void> {
  const db = mongo.db(`${run}_agenda`);
  cleanups.push(() => db.dropDatabase());
  const settings = { processEvery: 100, maxConcurrency: CONCURRENCY, defaultConcurrency: CONCURRENCY, lockLimit: 0, defaultLockLimit: 0 };
  const agenda = new Agenda({ backend: new MongoBackend({ mongo: db, collection: 'agendaJobs' }), ...settings });
  // Counted by job id: on FerretDB, whose update filters are not atomic, two lock queries can both
  // lock a job and Agenda then runs it twice; the extra runs are reported, not counted as throughput.
  const runs = new Set<string>();
  let completions = 0;
  let last = 0;
  const lags: number[] = [];
  agenda.define('noop', async () => undefined, { concurrency: CONCURRENCY, lockLimit: 0 });
  agenda.on('start', (job: { attrs: { _id?: unknown } }) => {
    const id = String(job.attrs._id);
    if (!runs.has(id)) lags.push(Date.now() - due.getTime());
    runs.add(id);
  });
  agenda.on('complete', () => {
    completions++;
    last = Date.now();
  });
  const due = new Date(Date.now() + 5000 + n * 20);
  for (let i = 0; i < n; i += 20) {
    await Promise.all(Array.from({ length: Math.min(20, n - i) }, () => agenda.create('noop', {}).schedule(due).save()));
  }
  await agenda.start();
  await untilTrue(async () => runs.size >= n && completions >= runs.size, Math.max(0, due.getTime() - Date.now()) + 10_000 + n * 500, 200);
  await agenda.stop();
  rows.push({
    case: 'Agenda 6 (mongo-backend)',
    n,
    started: runs.size,
    perSecond: runs.size / ((last - due.getTime()) / 1000),
    lagMs: lagFigures(lags),
    settings: `processEvery 100 ms, concurrency ${CONCURRENCY}, no lock limit; ${completions - runs.size} extra runs of a job already run`,
  });
}

interface KairosCluster {
  db: Db;
  /** Its Redis key prefix. */
  prefix: string;
  /** Its processes' pids, named for the CPU reading. */
  pids: Map<number, string>;
  url: string | null;
  counts(): CommandCounts;
  stop(): Promise<void>;
}

/** Kairos as real processes: all roles in one, or api, scheduler and worker as one process each. */
async function startCluster(label: string, split: boolean): Promise<KairosCluster> {
  const name = `${run}_${label}`;
  const env = {
    MONGO_URL: databaseUrl(name),
    REDIS_URL: base.redisUrl,
    REDIS_PREFIX: name,
    JWT_SECRET: secret,
    // Throughput, not quotas, is measured: one tenant may run all it can, on BullMQ's concurrency.
    DEFAULT_MAX_CONCURRENT_EXECUTIONS: '100000',
    WORKER_IO_CONCURRENCY: String(CONCURRENCY),
    WORKER_TENANT_SHARE_PERCENT: '100',
    DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '1000000',
    DEFAULT_MAX_JOBS: '1000000',
  };
  const roles = split ? ['api', 'scheduler', 'worker'] : ['api,scheduler,worker'];
  const files: string[] = [];
  const processes: KairosProcess[] = [];
  for (const [i, r] of roles.entries()) {
    const file = path.resolve(countsDir, `${label}-${i}.json`);
    files.push(file);
    const counter = `${new URL('./commandCounter.js', import.meta.url).href}?out=${encodeURIComponent(file)}`;
    processes.push(
      await spawnKairos(
        { ...env, ROLES: r, PORT: String(await freePort()) },
        { nodeArgs: ['--import', counter, ...(cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfDir] : [])] },
      ),
    );
  }
  const db = mongo.db(name);
  const stop = async () => {
    await Promise.all(
      processes.map(async (p) => {
        if (p.child.exitCode !== null) return;
        const exited = new Promise((resolve) => p.child.once('exit', resolve));
        p.child.kill('SIGTERM');
        await exited;
      }),
    );
    await db.dropDatabase();
    await dropRedisPrefix(redis, name);
  };
  cleanups.push(stop);
  return {
    db,
    prefix: name,
    pids: new Map(processes.map((p, i) => [p.child.pid!, `kairos ${roles[i]}`])),
    url: processes.find((p) => p.url)?.url ?? null,
    counts: () => {
      const sum: CommandCounts = { mongoCommands: 0, mongoWrites: 0, mongoDocsChanged: 0, redisRoundTrips: 0, redisCommands: 0 };
      for (const file of files) {
        try {
          const c = JSON.parse(readFileSync(file, 'utf8')) as CommandCounts;
          for (const k of Object.keys(sum) as (keyof CommandCounts)[]) sum[k] += c[k];
        } catch {
          // Not written yet: nothing counted.
        }
      }
      return sum;
    },
    stop,
  };
}

function oneOffJob(runAt: Date, label: string, flowKey: string | null = null) {
  const flowControl = flowKey ? { key: flowKey, maxConcurrent: FLOW_MAX_CONCURRENT } : null;
  const definition = parseNewJob({ name: label, schedule: { runAt }, target: { handler: 'noop' }, flowControl }, new Date(), BUILTIN_NAMES);
  const _id = new ObjectId();
  const now = new Date();
  return {
    _id,
    ...definition,
    nameLower: definition.name,
    status: 'ACTIVE' as const,
    scheduleCursor: runAt,
    lastRunAt: null,
    idempotencyKey: `auto:${_id.toHexString()}`,
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
}

/**
 * 3. Kairos end to end: N one-off noop jobs due in the same second, from due time to SUCCEEDED;
 * with `flow`, spread over FLOW_KEYS flow-control keys of FLOW_MAX_CONCURRENT each (what the check costs).
 */
async function benchKairos(n: number, split: boolean, flow = false): Promise<void> {
  const label = `${split ? 'split' : 'one'}_${n}${flow ? '_flow' : ''}`;
  const cluster = await startCluster(label, split);
  const tenant = 'bench-burst';
  // Stored ahead of time (faster than the API), far enough ahead for the sweep to materialise them
  // all before they are due: the window measured is the worker's.
  const jobs = new JobStore(cluster.db, tenant);
  const due = new Date(Math.ceil((Date.now() + base.lookAheadMs + 8000 + n * 3) / 1000) * 1000);
  // Written past the API, so into the due index too, as createJob does (else only the leader's
  // next rebuild would find them).
  const dueIndex = new DueIndex(redis, cluster.prefix);
  for (let i = 0; i < n; i += 500) {
    const batch = Array.from({ length: Math.min(500, n - i) }, (_, j) =>
      oneOffJob(new Date(due.getTime() + ((i + j) % 1000)), `burst-${i + j}`, flow ? `key-${(i + j) % FLOW_KEYS}` : null),
    );
    await Promise.all(batch.map((job) => dueIndex.expect(job._id, job.scheduleCursor)));
    await jobs.insertMany(batch);
  }
  await new Promise((r) => setTimeout(r, due.getTime() - Date.now()));
  const before = cluster.counts();
  const cpuBefore = cpuByProcess(cluster.pids);
  const executions = new ExecutionStore(cluster.db, tenant);
  const window: [Date, Date] = [new Date(due.getTime() - 1), new Date(due.getTime() + 2000)];
  const succeeded = async () => (await executions.countByStatus(...window, null)).find((c) => c.status === 'SUCCEEDED')?.count ?? 0;
  await untilTrue(async () => (await succeeded()) >= n, 60_000 + n * 100, 1000);
  const after = cluster.counts();
  const cores = coresUsed(cpuBefore, cpuByProcess(cluster.pids), (Date.now() - due.getTime()) / 1000);
  const timings = await executions.timings(...window, n);
  const started = timings.filter((t) => t.startedAt);
  const lastFinish = Math.max(...timings.map((t) => t.finishedAt?.getTime() ?? 0));
  const done = timings.filter((t) => t.status === 'SUCCEEDED').length;
  const per = (k: keyof CommandCounts) => Math.round(((after[k] - before[k]) / Math.max(1, done)) * 100) / 100;
  rows.push({
    case: `Kairos ${split ? 'api/scheduler/worker processes' : 'all roles, one process'}${flow ? `, flow control (${FLOW_KEYS} keys × maxConcurrent ${FLOW_MAX_CONCURRENT})` : ''}`,
    n,
    started: started.length,
    perSecond: done / ((lastFinish - due.getTime()) / 1000),
    lagMs: lagFigures(started.map((t) => t.startedAt!.getTime() - t.scheduledFor.getTime())),
    perExecution: {
      mongoCommands: per('mongoCommands'),
      mongoWrites: per('mongoWrites'),
      mongoDocsChanged: per('mongoDocsChanged'),
      redisRoundTrips: per('redisRoundTrips'),
      redisCommands: per('redisCommands'),
    },
    settings: `one worker process, concurrency ${CONCURRENCY}; ${done}/${n} SUCCEEDED`,
    cores,
  });
  await cluster.stop();
}

/** 4. Idle: one occurrence due at a time (every 200 ms), created through the API. */
async function benchIdle(n: number): Promise<void> {
  const cluster = await startCluster('idle', false);
  const tenant = 'bench-idle';
  const token = signDevToken(secret, { tenantId: tenant, role: 'admin' });
  const start = Date.now() + 3000;
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const response = await fetch(cluster.url!, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({
          query: 'mutation($i: CreateJobInput!) { createJob(input: $i) { job { id } } }',
          variables: {
            i: { name: `idle-${i}`, schedule: { runAt: new Date(start + i * 200).toISOString() }, target: { handler: 'noop' } },
          },
        }),
      });
      const body = (await response.json()) as { errors?: unknown };
      if (body.errors) throw new Error(JSON.stringify(body.errors));
    }),
  );
  const executions = new ExecutionStore(cluster.db, tenant);
  const window: [Date, Date] = [new Date(0), new Date(Date.now() + 3600_000)];
  await untilTrue(
    async () => ((await executions.countByStatus(...window, null)).find((c) => c.status === 'SUCCEEDED')?.count ?? 0) >= n,
    3000 + n * 200 + 15_000,
    500,
  );
  const lags = await executions.startLags(...window, null, n);
  rows.push({
    case: 'Kairos idle (one due at a time)',
    n,
    started: lags.length,
    perSecond: NaN,
    lagMs: lagFigures(lags),
    settings: 'all roles, one process; one job due every 200 ms',
  });
  await cluster.stop();
}

try {
  const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`;
  process.stdout.write(`npm run bench${quick ? ' --quick' : ''} on ${machine}\n`);
  const step = async (label: string, fn: () => Promise<void>) => {
    const at = Date.now();
    process.stderr.write(`${label}...\n`);
    await fn();
    process.stderr.write(`${label}: ${((Date.now() - at) / 1000).toFixed(0)} s\n`);
  };
  const wanted = (name: string) => !only || only.has(name);
  if (wanted('bullmq')) await step(`BullMQ ${sizes.bullmq}`, () => benchBullmq(sizes.bullmq));
  if (wanted('agenda')) await step(`Agenda ${sizes.agenda}`, () => benchAgenda(sizes.agenda));
  if (wanted('kairos'))
    for (const k of sizes.kairos)
      await step(`Kairos ${k.n}${k.split ? ' split' : ''}${k.flow ? ' flow control' : ''}`, () => benchKairos(k.n, k.split, k.flow));
  if (wanted('idle')) await step(`idle ${sizes.idle}`, () => benchIdle(sizes.idle));
  process.stdout.write(`${formatBenchTable(rows)}\n`);
  for (const r of rows.filter((x) => x.cores)) {
    process.stdout.write(
      `${r.case} (n=${r.n}), cores used while it ran: ${Object.entries(r.cores!)
        .map(([name, c]) => `${name} ${c}`)
        .join(', ')}\n`,
    );
  }
  const bull = rows.find((r) => r.case.startsWith('BullMQ'))?.perSecond ?? NaN;
  const agenda = rows.find((r) => r.case.startsWith('Agenda'))?.perSecond ?? NaN;
  for (const r of rows.filter((x) => x.case.startsWith('Kairos') && !Number.isNaN(x.perSecond))) {
    process.stdout.write(
      `${r.case} (n=${r.n}): ${(r.perSecond / bull).toFixed(3)}x BullMQ, ${(r.perSecond / agenda).toFixed(1)}x Agenda\n`,
    );
  }
  const file = path.join('.data', 'bench', `${new Date().toISOString().replace(/[:.]/g, '-')}${quick ? '-quick' : ''}.json`);
  writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), quick, machine, rows }, null, 2));
  process.stdout.write(`written to ${file}\n`);
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  rmSync(countsDir, { recursive: true, force: true });
  await mongo.close();
  await redis.quit();
}
// Agenda arms a liveness timer of half the job's lockLifetime (10 min by default) for every run and
// never clears it: without this exit the process idles 5 minutes after the Agenda case, everything done.
process.exit(0);
