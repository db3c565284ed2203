import 'reflect-metadata';
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { MongoClient, ObjectId } from 'mongodb';
import { Redis } from 'ioredis';
import { dropRedisPrefix } from '../servers/dropRedisPrefix.js';
import { loadConfig } from '#kairos/config.js';
import { signDevToken } from '#kairos/auth/verifyToken.js';
import { ExecutionStore } from '#kairos/store/executionStore.js';
import { SchedulerStore } from '#kairos/store/schedulerStore.js';
import { spawnKairos } from '../servers/kairosProcess.js';
import { freePort } from '../servers/localServers.js';
import { coresUsed, cpuByProcess } from './cpuByProcess.js';
import { finishedExecution } from './finishedExecution.js';
import type { NoisyOrders, NoisyReport } from './noisyTenant.js';

/**
 * `npm run bench:neighbours [-- --quick]`: does a tenant that uses everything its default quotas
 * allow slow another tenant down? Kairos runs as one real process (all roles, production mode,
 * default quotas) against the shared Redis and MongoDB-wire server, in its own database and Redis
 * prefix (removed at the end). Tenant B alone first (calm), then tenant A joins (noisy, forked as
 * its own process, see noisyTenant.ts): sleeps triggered as fast as its write rate allows, 60 jobs
 * every second, every socket and subscription its caps allow, the costliest previewSchedule back
 * to back, and full pages of its executions (seeded first) read by queries kept in flight over
 * graphql-ws (wsReadsLoad.ts). B meanwhile creates one-off jobs a few seconds ahead, runs an
 * interval job and reads its jobs and executions at a steady pace. Prints B's start lag, B's API latency, /healthz latency
 * and the Kairos process's event-loop delay (prom-client's, from its /metrics) against the targets,
 * and writes them as JSON under .data/bench/.
 */
const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, without: { type: 'string', default: '' } } });
const quick = values.quick;
/** `--without previews,sockets,writes,ws-reads` leaves parts of A's load out, to see what each costs. */
const without = new Set(values.without.split(',').filter(Boolean));
const phases = quick ? { calmMs: 6000, noisyMs: 25_000 } : { calmMs: 15_000, noisyMs: 75_000 };
const TARGETS = { startLagP99Ms: 250, apiP99Ms: 200, healthzP99Ms: 100, eventLoopP99Ms: 50 };
const B_PERIOD_MS = 500;
const HEALTHZ_PERIOD_MS = 100;
const ONE_OFF_AHEAD_MS = 3000;
/** A's finished executions inserted before the run when it reads them over graphql-ws: 20 full pages of 100. */
const A_HISTORY = 2000;
/** A request unanswered after this counts as an error, so a stuck server cannot hold the run past its bound. */
const REQUEST_TIMEOUT_MS = 10_000;
const progress = (what: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${what}\n`);

const run = `bench_nb_${randomBytes(3).toString('hex')}`;
const secret = randomBytes(24).toString('base64url');
const base = loadConfig(undefined, { JWT_SECRET: secret });
const mongoUrl = new URL(base.mongoUrl);
mongoUrl.pathname = `/${run}`;
const kairos = await spawnKairos(
  {
    MONGO_URL: mongoUrl.toString(),
    REDIS_URL: base.redisUrl,
    REDIS_PREFIX: run,
    JWT_SECRET: secret,
    ROLES: 'api,scheduler,worker',
    PORT: String(await freePort()),
    KAIROS_MODE: 'production',
    // Only so that the end does not wait for A's 20 s sleeps.
    WORKER_DRAIN_MS: '1000',
  },
  { startTimeoutMs: 30_000 },
);
const url = kairos.url!;
const origin = new URL(url).origin;
const mongo = await new MongoClient(base.mongoUrl).connect();
const db = mongo.db(run);
const tenantA = 'noisy-a';
const tenantB = 'calm-b';
const tokenB = signDevToken(secret, { tenantId: tenantB, role: 'member' });

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
function figures(samples: number[]): { n: number; p50: number; p99: number; max: number } {
  const s = [...samples].sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 10) / 10;
  return { n: s.length, p50: round(percentile(s, 50)), p99: round(percentile(s, 99)), max: round(s[s.length - 1] ?? NaN) };
}

/** B's requests: latency in ms by operation, with the phase each fell in. */
type Phase = 'calm' | 'noisy';
let phase: Phase = 'calm';
const apiMs: Record<Phase, Record<string, number[]>> = { calm: {}, noisy: {} };
const apiErrors: string[] = [];
/** B's answers slower than the API target while A runs, by the second of A's run they started in: where the tail comes from. */
const slowB: { op: string; ms: number; second: number }[] = [];
let noisyStart = 0;

async function gqlB(operation: string, query: string, variables: Record<string, unknown> = {}): Promise<unknown> {
  const at = performance.now();
  const started = phase;
  const response = await fetch(url, {
    method: 'POST',
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tokenB}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: unknown; errors?: { message: string }[] };
  const ms = performance.now() - at;
  (apiMs[started][operation] ??= []).push(ms);
  if (started === 'noisy' && ms >= TARGETS.apiP99Ms)
    slowB.push({ op: operation, ms: Math.round(ms), second: Math.floor((Date.now() - ms - noisyStart) / 1000) });
  if (body.errors && apiErrors.length < 10) apiErrors.push(`${operation}: ${body.errors[0].message}`);
  return body.data;
}

const CREATE = 'mutation BCreate($i: CreateJobInput!) { createJob(input: $i) { job { id } } }';
const JOBS = 'query BJobs { jobs(first: 20) { edges { node { id name status nextRunAt } } pageInfo { hasNextPage endCursor } } }';
const EXECUTIONS =
  'query BExecutions { executions(first: 20) { edges { node { id status scheduledFor attempts { startedAt finishedAt } } } pageInfo { hasNextPage endCursor } } }';

/** What Kairos' /metrics says now; each scrape also resets prom-client's event-loop histogram, so a scrape ends a window. */
async function scrape(): Promise<Map<string, number>> {
  const text = await (await fetch(kairos.metricsUrl!, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })).text();
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (match) values.set(match[1], Number(match[2]));
  }
  return values;
}
const seconds = (m: Map<string, number>, name: string) => Math.round((m.get(name) ?? NaN) * 1e4) / 10;

/** Server-side mean duration (ms) of each named operation during a window, from the GraphQL histogram. */
function serverMeans(before: Map<string, number>, after: Map<string, number>): Record<string, { count: number; meanMs: number }> {
  const out: Record<string, { count: number; meanMs: number }> = {};
  for (const [key, count] of after) {
    const match = /^kairos_graphql_operation_duration_seconds_count\{operation="([^"]+)"/.exec(key);
    if (!match) continue;
    const sumKey = key.replace('_count{', '_sum{');
    const n = count - (before.get(key) ?? 0);
    if (n > 0) out[match[1]] = { count: n, meanMs: Math.round((((after.get(sumKey) ?? 0) - (before.get(sumKey) ?? 0)) / n) * 1e4) / 10 };
  }
  return out;
}

const healthzMs: Record<Phase, number[]> = { calm: [], noisy: [] };
let stopping = false;
const inFlight = new Set<Promise<unknown>>();
function track(p: Promise<unknown>): void {
  const tracked = p.catch((error: Error) => apiErrors.length < 10 && apiErrors.push(error.message)).finally(() => inFlight.delete(tracked));
  inFlight.add(tracked);
}

/** Fixed ticks, whether or not the previous request has answered, so a slow answer is not hidden by fewer requests. */
function every(periodMs: number, tick: () => Promise<unknown>): NodeJS.Timeout {
  return setInterval(() => {
    if (!stopping) track(tick());
  }, periodMs);
}

const clientDelay = monitorEventLoopDelay({ resolution: 10 });
const labels = new Map<number, string>([
  [process.pid, 'bench client (tenant B)'],
  [kairos.child.pid!, 'kairos (all roles)'],
]);
const result: Record<string, unknown> = {};
try {
  const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`;
  process.stdout.write(
    `npm run bench:neighbours${quick ? ' --quick' : ''}${without.size ? ` --without ${[...without].join(',')}` : ''} on ${machine}\n`,
  );
  // A's history, for its WebSocket reads to page through: inserted before B starts, so that both of B's phases see the same collection.
  const wsReads = !without.has('ws-reads');
  if (wsReads) {
    const jobId = new ObjectId();
    const end = Date.now() - 60_000;
    await new SchedulerStore(db).insertExecutions(
      Array.from({ length: A_HISTORY }, (_, i) => finishedExecution(tenantA, jobId, new Date(end - (A_HISTORY - i) * 30_000), i)),
    );
  }
  // B: an interval job every second and one-off jobs due a few seconds after they are created.
  await gqlB('BCreate', CREATE, { i: { name: 'b-every-second', schedule: { intervalSeconds: 1 }, target: { handler: 'noop' } } });
  let oneOffs = 0;
  clientDelay.enable();
  const timers = [
    every(B_PERIOD_MS, () =>
      gqlB('BCreate', CREATE, {
        i: {
          name: `b-once-${oneOffs++}`,
          schedule: { runAt: new Date(Date.now() + ONE_OFF_AHEAD_MS).toISOString() },
          target: { handler: 'noop' },
        },
      }),
    ),
    every(B_PERIOD_MS, () => gqlB('BJobs', JOBS)),
    every(B_PERIOD_MS, () => gqlB('BExecutions', EXECUTIONS)),
    every(HEALTHZ_PERIOD_MS, async () => {
      const at = performance.now();
      const started = phase;
      const response = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      await response.text();
      healthzMs[started].push(performance.now() - at);
    }),
  ];
  progress(`tenant B alone for ${phases.calmMs / 1000} s`);
  const calmStart = Date.now();
  const cpu0 = cpuByProcess(labels);
  const m0 = await scrape();
  await new Promise((r) => setTimeout(r, phases.calmMs));

  // A joins.
  const m1 = await scrape();
  const cpu1 = cpuByProcess(labels);
  phase = 'noisy';
  noisyStart = Date.now();
  const child = fork(fileURLToPath(new URL('./noisyTenant.js', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  labels.set(child.pid!, 'bench client (tenant A)');
  const reported = new Promise<NoisyReport>((resolve, reject) => {
    child.once('message', (m: NoisyReport | { error: string }) => ('error' in m ? reject(new Error(m.error)) : resolve(m)));
    child.once('exit', (code) => reject(new Error(`tenant A's process exited with ${code} before reporting`)));
  });
  reported.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
  const orders: NoisyOrders = {
    url,
    tokens: Array.from({ length: 7 }, (_, i) => signDevToken(secret, { tenantId: tenantA, role: 'member', subject: `a-${i}` })),
    untilMs: noisyStart + phases.noisyMs,
    intervalJobs: 60,
    previewLoops: without.has('previews') ? 0 : 2,
    sockets: !without.has('sockets'),
    writes: !without.has('writes'),
    caps: base.defaultConnectionQuota,
    // The tenant's whole operation cap, on as few sockets as the per-socket cap allows (200 on 4 by default).
    wsReads: wsReads
      ? {
          sockets: Math.ceil(base.defaultConnectionQuota.maxSubscriptions / base.defaultConnectionQuota.maxSubscriptionsPerSocket),
          perSocket: base.defaultConnectionQuota.maxSubscriptionsPerSocket,
        }
      : null,
  };
  child.send(orders);
  progress(`tenant A joins for ${phases.noisyMs / 1000} s`);
  // Read just before A stops (its sockets closing is not its load).
  await new Promise((r) => setTimeout(r, phases.noisyMs - 300));
  const cpu2 = cpuByProcess(labels);
  const m2 = await scrape();
  const report = await Promise.race([
    reported,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error("tenant A's process did not report within 15 s of its end")), 15_000).unref(),
    ),
  ]);
  progress("tenant A stopped; reading B's executions");
  stopping = true;
  for (const t of timers) clearInterval(t);
  await Promise.all(inFlight);
  clientDelay.disable();
  const noisyEnd = Date.now();

  // B's executions due in each phase; those not started yet count with their wait so far (a lower bound).
  await new Promise((r) => setTimeout(r, 1500));
  const collected = Date.now();
  const executions = new ExecutionStore(db, tenantB);
  const lagsOf = async (from: number, to: number) => {
    const rows = await executions.timings(new Date(from), new Date(to), 100_000);
    const waiting = rows.filter((r) => !r.startedAt && r.status !== 'SKIPPED' && r.status !== 'CANCELLED');
    return {
      ...figures(
        rows
          .filter((r) => r.startedAt)
          .map((r) => r.startedAt!.getTime() - r.scheduledFor.getTime())
          .concat(waiting.map((r) => collected - r.scheduledFor.getTime())),
      ),
      notStarted: waiting.length,
      skipped: rows.filter((r) => r.status === 'SKIPPED').length,
    };
  };
  const lag = { calm: await lagsOf(calmStart, noisyStart), noisy: await lagsOf(noisyStart, noisyEnd) };
  // What A's load wrote: its executions by status (SKIPPED ones, past its scheduled budget, are documents too).
  const aByStatus = Object.fromEntries(
    (await new ExecutionStore(db, tenantA).countByStatus(new Date(0), new Date(Date.now() + 3600_000), null)).map((c) => [
      c.status,
      c.count,
    ]),
  );
  const api = (p: Phase) => ({
    all: figures(Object.values(apiMs[p]).flat()),
    ...Object.fromEntries(Object.entries(apiMs[p]).map(([op, ms]) => [op, figures(ms)])),
  });
  const loop = (m: Map<string, number>) => ({
    p50: seconds(m, 'nodejs_eventloop_lag_p50_seconds'),
    p99: seconds(m, 'nodejs_eventloop_lag_p99_seconds'),
    max: seconds(m, 'nodejs_eventloop_lag_max_seconds'),
  });
  const cpuWindow = (m: Map<string, number>, n: Map<string, number>, s: number) =>
    Math.round((((n.get('process_cpu_seconds_total') ?? 0) - (m.get('process_cpu_seconds_total') ?? 0)) / s) * 100) / 100;
  Object.assign(result, {
    at: new Date().toISOString(),
    quick,
    without: [...without],
    machine,
    phasesMs: phases,
    targets: TARGETS,
    startLagMs: lag,
    apiMs: { calm: api('calm'), noisy: api('noisy') },
    apiErrors,
    slowB,
    healthzMs: { calm: figures(healthzMs.calm), noisy: figures(healthzMs.noisy) },
    // prom-client samples every 10 ms, so an idle loop reads about 10 ms.
    eventLoopDelayMs: { calm: loop(m1), noisy: loop(m2) },
    kairosCores: { calm: cpuWindow(m0, m1, phases.calmMs / 1000), noisy: cpuWindow(m1, m2, (phases.noisyMs - 300) / 1000) },
    coresByProcess: { calm: coresUsed(cpu0, cpu1, phases.calmMs / 1000), noisy: coresUsed(cpu1, cpu2, (phases.noisyMs - 300) / 1000) },
    serverMeanMs: { calm: serverMeans(m0, m1), noisy: serverMeans(m1, m2) },
    quotaRefusals: Object.fromEntries(
      [...m2]
        .filter(([k]) => k.startsWith('kairos_quota_refusals_total'))
        .map(([k, v]) => [k.replace('kairos_quota_refusals_total', ''), v]),
    ),
    subscriptionEventsSent: m2.get('kairos_subscription_events_sent_total'),
    benchClientLoopP99Ms: Math.round(clientDelay.percentile(99) / 1e5) / 10,
    tenantA: { ...report, executionsByStatus: aByStatus, seededExecutions: wsReads ? A_HISTORY : 0 },
  });

  const rows: [string, string, string, number][] = [
    ["B's start lag (scheduledFor → startedAt)", fmt(lag.calm), fmt(lag.noisy), TARGETS.startLagP99Ms],
    [
      "B's API latency (creates, job list, execution page)",
      fmt(figures(Object.values(apiMs.calm).flat())),
      fmt(figures(Object.values(apiMs.noisy).flat())),
      TARGETS.apiP99Ms,
    ],
    ['/healthz latency (every 100 ms)', fmt(figures(healthzMs.calm)), fmt(figures(healthzMs.noisy)), TARGETS.healthzP99Ms],
    ['Kairos event-loop delay (prom-client)', fmt(loop(m1)), fmt(loop(m2)), TARGETS.eventLoopP99Ms],
  ];
  const verdict = [lag.noisy.p99, figures(Object.values(apiMs.noisy).flat()).p99, figures(healthzMs.noisy).p99, loop(m2).p99];
  const header = ['measure (ms)', 'B alone p50 / p99 (n)', 'with A p50 / p99 (n)', 'target p99', 'met'];
  const lines = rows.map((r, i) => [r[0], r[1], r[2], `< ${r[3]}`, verdict[i] < r[3] ? 'yes' : 'NO']);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  process.stdout.write(`${[line(header), ...lines.map(line)].join('\n')}\n`);
  process.stdout.write(
    `tenant A: ${report.sleeperTriggers} sleep triggers answered within 30 s (${report.triggerRefusals} RATE_LIMITED answers), ${report.intervalJobsCreated} interval jobs, ` +
      `${report.socketsOpen} sockets (${report.socketsRefused.map((s) => s.code).join(', ') || 'none'} refused), ${report.subscriptionsOpen} subscriptions ` +
      `(${report.subscriptionRefusalCount} refused, ${report.subscriptionsRateLimited} RATE_LIMITED and sent again), ${report.eventsReceived} events, ${report.previews} worst previews (${report.previewRefusals} refused by the search budget; p50 ${report.previewMs.p50} ms, p99 ${report.previewMs.p99} ms)\n`,
  );
  const reads = report.wsReads;
  if (reads)
    process.stdout.write(
      `tenant A's WebSocket reads (executions(first: 100), ${orders.wsReads!.perSocket} in flight on each of ${reads.socketsOpen} sockets` +
        `${reads.socketsRefused.length ? `, ${reads.socketsRefused.length} sockets refused` : ''}): ${reads.answered} WS queries answered ` +
        `(p50 ${reads.answerMs.p50} ms, p99 ${reads.answerMs.p99} ms, max ${reads.answerMs.max} ms), ${reads.rateLimited} refused RATE_LIMITED, ` +
        `${reads.overCaps} refused QUOTA_EXCEEDED (operation caps), ${reads.errorCount} other errors${reads.errors.length ? ` (${reads.errors.join('; ')})` : ''}\n`,
    );
  process.stdout.write(
    `B's answers over ${TARGETS.apiP99Ms} ms with A (second of A's run: operation ms): ${slowB.map((s) => `${s.second}: ${s.op} ${s.ms}`).join(', ') || 'none'}\n`,
  );
  process.stdout.write(
    `tenant A's executions by status: ${JSON.stringify(aByStatus)}${wsReads ? ` (${A_HISTORY} SUCCEEDED of them seeded before the run)` : ''}\n`,
  );
  process.stdout.write(
    `B's executions with A: ${lag.noisy.n} due, ${lag.noisy.notStarted} not started by the end, ${lag.noisy.skipped} skipped\n`,
  );
  process.stdout.write(
    `cores used with A: ${JSON.stringify(result.coresByProcess && (result.coresByProcess as { noisy: unknown }).noisy)}\n`,
  );
  const dir = path.join('.data', 'bench');
  mkdirSync(dir, { recursive: true });
  const file = path.join(
    dir,
    `neighbours-${new Date().toISOString().replace(/[:.]/g, '-')}${quick ? '-quick' : ''}${without.size ? `-without-${[...without].join('-')}` : ''}.json`,
  );
  writeFileSync(file, JSON.stringify(result, null, 2));
  process.stdout.write(`written to ${file}\n`);
} finally {
  stopping = true;
  if (kairos.child.exitCode === null) {
    const exited = new Promise((resolve) => kairos.child.once('exit', resolve));
    kairos.child.kill('SIGTERM');
    const timer = setTimeout(() => kairos.child.kill('SIGKILL'), 8000);
    await exited;
    clearTimeout(timer);
  }
  await db.dropDatabase().catch(() => undefined);
  await mongo.close();
  const redis = new Redis(base.redisUrl);
  await dropRedisPrefix(redis, run);
  await redis.quit();
}

function fmt(f: { n: number; p50: number; p99: number } | { p50: number; p99: number }): string {
  return `${f.p50} / ${f.p99}${'n' in f ? ` (${f.n})` : ''}`;
}
