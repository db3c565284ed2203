import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import { Redis } from 'ioredis';
import { signDevToken } from '#kairos/auth/verifyToken.js';
import { AuditStore } from '../audit/auditStore.js';
import { CHAOS_FLOW, chaosJobs } from './chaosJobs.js';
import { checkRun } from './checkRun.js';
import { FlakyReceiver } from './flakyReceiver.js';
import { spawnKairos, type KairosProcess } from '../servers/kairosProcess.js';
import { startLocalMongo, startLocalRedis } from '../servers/localServers.js';
import { leaseKey } from '#kairos/scheduler/leaderLease.js';
import { FlowLimiter } from '#kairos/quotas/flowLimiter.js';

/**
 * `npm run chaos [-- --short] [--duration S] [--jobs N] [--postgres-url URL]`: runs Kairos as
 * separate processes (2 api, 2 scheduler, 3 worker) against a Redis and a FerretDB (or mongod) of
 * its own, keeps the jobs firing, and meanwhile SIGKILLs the leader and workers mid-attempt,
 * restarts Redis empty and pauses MongoDB with SIGSTOP for 10 s. Then it lets the run settle and
 * checks MongoDB and the HTTP target's log (checkRun.ts). Prints one summary line; exits 1 on any
 * violation. Logs of every process go to .data/chaos/.
 */
const { values } = parseArgs({
  options: {
    short: { type: 'boolean', default: false },
    duration: { type: 'string' },
    jobs: { type: 'string', default: '200' },
    settle: { type: 'string', default: '90' },
    'postgres-url': { type: 'string' },
  },
});
const durationMs = Number(values.duration ?? (values.short ? 45 : 240)) * 1000;
const jobCount = Number(values.jobs);
const settleMs = Number(values.settle) * 1000;
const MONGO_PAUSE_MS = 10_000;
/** Three lease TTLs: a failover slower than that is a violation, not a hang. */
const LEADER_WAIT_MS = 9000;
const PREFIX = 'chaos';
const started = Date.now();
const say = (line: string) => process.stdout.write(`chaos: t+${((Date.now() - started) / 1000).toFixed(1)}s ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

const dir = path.resolve('.data/chaos');
rmSync(dir, { recursive: true, force: true });
mkdirSync(path.join(dir, 'ferretdb'), { recursive: true });

const redis = await startLocalRedis();
const mongo = await startLocalMongo({ dataDir: path.join(dir, 'ferretdb'), postgresUrl: values['postgres-url'] });
const receiver = new FlakyReceiver();
const targetUrl = await receiver.start();
const secret = randomBytes(24).toString('base64url');
const env: Record<string, string> = {
  // Up to ten processes (killed ones are replaced) and this runner share FerretDB's pool of 50
  // PostgreSQL connections. FerretDB 1.x holds a query's connection while it takes a second one for
  // the write, so more operations in flight than its pool deadlocks it for good: 10 × 4 + 2 < 50.
  MONGO_URL: `${mongo.url}?maxPoolSize=4`,
  REDIS_URL: redis.url,
  REDIS_PREFIX: PREFIX,
  JWT_SECRET: secret,
  PORT: '0',
  ALLOW_PRIVATE_TARGETS: 'true',
  KAIROS_MODE: 'development',
  QUEUE_LOCK_MS: '5000',
  LEASE_TTL_MS: '3000',
  RECONCILE_EVERY_MS: '3000',
  RECONCILE_GRACE_MS: '5000',
  WORKER_DRAIN_MS: '2000',
  // One tenant runs the whole mix, catch-ups after each outage included: none may be SKIPPED over its budget.
  DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '1000000',
};
const violations: string[] = [];
const processes: { role: string; proc: KairosProcess; killedByUs: boolean }[] = [];
let serial = 0;
async function spawn(role: 'api' | 'scheduler' | 'worker'): Promise<KairosProcess> {
  const proc = await spawnKairos({ ...env, ROLES: role }, { logFile: path.join(dir, `${role}-${++serial}.log`) });
  const entry = { role, proc, killedByUs: false };
  processes.push(entry);
  proc.child.once('exit', (code, signal) => {
    if (!entry.killedByUs) violations.push(`process: ${role} pid ${proc.child.pid} exited on its own (${signal ?? code}); see .data/chaos`);
  });
  return proc;
}
function kill(pid: number, signal: NodeJS.Signals): string {
  const entry = processes.find((p) => p.proc.child.pid === pid && p.proc.child.exitCode === null);
  if (!entry) throw new Error(`no live process ${pid}`);
  entry.killedByUs = true;
  entry.proc.child.kill(signal);
  processes.splice(processes.indexOf(entry), 1);
  return entry.role;
}
// Whatever way the runner ends, no Kairos process or server it started outlives it.
process.on('exit', () => {
  for (const entry of processes) entry.proc.child.kill('SIGKILL');
  for (const server of [redis, mongo]) {
    try {
      process.kill(server.pid, 'SIGCONT');
      process.kill(server.pid, 'SIGKILL');
    } catch {
      // Already gone (stopped at the end of a normal run).
    }
  }
});
const live = (role: string) => processes.filter((p) => p.role === role).map((p) => p.proc);

const apis = [await spawn('api'), await spawn('api')];
await spawn('scheduler');
await spawn('scheduler');
for (let i = 0; i < 3; i++) await spawn('worker');
say(`started 2 api, 2 scheduler, 3 worker processes; redis ${redis.url}; mongo ${mongo.url}; target ${targetUrl}`);

const probe = new Redis(redis.url, { maxRetriesPerRequest: 1 });
probe.on('error', () => undefined);
const mongoClient = await new MongoClient(mongo.url, {
  serverSelectionTimeoutMS: 30_000,
  socketTimeoutMS: 60_000,
  maxPoolSize: 2,
}).connect();
const audit = new AuditStore(mongoClient.db());
const pidOf = (candidateId: string | null | undefined) => (candidateId ? Number(candidateId.split('-').at(-2)) : undefined);

const takeovers: number[] = [];
/** When Redis came back empty, until the attempts then running ended. */
const forgotten: [Date, Date][] = [];
let workerKills = 0;
/** Creates the jobs, runs the chaos timeline, lets the run settle and checks it. */
async function exercise(): Promise<ReturnType<typeof checkRun>> {
  const token = signDevToken(secret, { tenantId: 'chaos', role: 'member', expiresInSeconds: 3600 });
  const inputs = chaosJobs(jobCount, targetUrl);
  for (let i = 0; i < inputs.length; i += 10) {
    await Promise.all(
      inputs.slice(i, i + 10).map(async (input, j) => {
        const response = await fetch(apis[(i + j) % apis.length].url!, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ query: 'mutation($i: CreateJobInput!) { createJob(input: $i) { job { id } } }', variables: { i: input } }),
        });
        const body = (await response.json()) as { errors?: unknown };
        if (body.errors) throw new Error(`createJob failed: ${JSON.stringify(body.errors)}`);
      }),
    );
  }
  const runStart = Date.now();
  const until = new Date(runStart + durationMs);
  say(`created ${inputs.length} jobs; chaos for ${durationMs / 1000} s`);

  async function killLeader(): Promise<void> {
    const leader = pidOf(await probe.get(leaseKey(PREFIX)));
    if (!leader) {
      say('no leader to kill right now');
      return;
    }
    kill(leader, 'SIGKILL');
    const at = Date.now();
    await spawn('scheduler');
    for (;;) {
      const now = pidOf(await probe.get(leaseKey(PREFIX)).catch(() => null));
      if (now && now !== leader) break;
      if (Date.now() - at > LEADER_WAIT_MS) {
        violations.push(`failover: no new leader ${LEADER_WAIT_MS / 1000} s after the leader was killed`);
        return;
      }
      await sleep(50);
    }
    takeovers.push(Date.now() - at);
    say(`SIGKILLed leader ${leader}; leadership moved in ${((Date.now() - at) / 1000).toFixed(1)} s`);
  }
  async function killWorkerMidAttempt(): Promise<void> {
    const running = await audit.runningWorkerIds();
    const runningOn = (pid: number | undefined) => running.filter((workerId) => pidOf(workerId) === pid).length;
    const victim = live('worker').sort((a, b) => runningOn(b.child.pid) - runningOn(a.child.pid))[0];
    const attempts = runningOn(victim.child.pid);
    kill(victim.child.pid!, 'SIGKILL');
    workerKills++;
    say(`SIGKILLed worker ${victim.child.pid} with ${attempts} attempts running`);
    await spawn('worker');
  }
  async function restartRedisEmpty(): Promise<void> {
    const at = new Date();
    await redis.restart({ downMs: 1000 });
    // Until the attempts running then end (their 3 s timeout, and a margin), the key's places they held are forgotten.
    forgotten.push([at, new Date(Date.now() + 8000)]);
    say('restarted Redis with its data gone');
  }
  async function pauseMongo(): Promise<void> {
    mongo.pause();
    say(`paused MongoDB (SIGSTOP) for ${MONGO_PAUSE_MS / 1000} s`);
    await sleep(MONGO_PAUSE_MS);
    mongo.resume();
    say('resumed MongoDB (SIGCONT)');
  }
  const timeline: [number, () => Promise<void>][] = [
    [0.15, killLeader],
    [0.3, killWorkerMidAttempt],
    [0.45, restartRedisEmpty],
    [0.6, pauseMongo],
    [0.85, async () => (await killWorkerMidAttempt(), await killLeader())],
  ];
  for (const [at, act] of timeline) {
    await sleep(runStart + at * durationMs - Date.now());
    await act();
  }
  await sleep(until.getTime() - Date.now());

  say(`run over; letting executions due by then settle (up to ${settleMs / 1000} s)`);
  const settleBy = Date.now() + settleMs;
  for (;;) {
    // Settled: the leader has materialised every occurrence due by then, and each has ended.
    const behind = await audit.countJobsBehind(until);
    const open = await audit.countOpenExecutions(until);
    if ((open === 0 && behind === 0) || Date.now() > settleBy) break;
    await sleep(2000);
  }

  // A killed worker's places on the flow-control key free themselves (the attempt's timeout plus 30 s).
  const flow = new FlowLimiter(probe, PREFIX, () => new Date());
  const heldUntil = Date.now() + 40_000;
  while ((await flow.running('chaos', CHAOS_FLOW.key)) > 0 && Date.now() < heldUntil) await sleep(1000);
  const held = await flow.running('chaos', CHAOS_FLOW.key);
  if (held > 0) violations.push(`flow control: key ${CHAOS_FLOW.key} still has ${held} places held 40 s after the run settled`);

  return checkRun({
    flow: { path: CHAOS_FLOW.path, maxConcurrent: CHAOS_FLOW.maxConcurrent, forgotten },
    jobs: await audit.allJobs(),
    executions: await audit.allExecutions(),
    deliveries: receiver.deliveries,
    until,
    now: new Date(),
    pendingGraceMs: 30_000,
  });
}

let result: ReturnType<typeof checkRun> | null = null;
try {
  result = await exercise();
  violations.push(...result.violations);
} catch (error) {
  // A server that stops answering the runner's own checks is a finding, not a crash: report it and clean up.
  violations.push(`runner: ${(error as Error).message} (see .data/chaos for the processes' logs)`);
}

for (const entry of processes) {
  entry.killedByUs = true;
  entry.proc.child.kill('SIGTERM');
}
const exited = Promise.all(
  processes.filter((p) => p.proc.child.exitCode === null).map((p) => new Promise((resolve) => p.proc.child.once('exit', resolve))),
);
// A process stuck on a hung server would keep the run waiting: 20 s after SIGTERM it is killed.
if ((await Promise.race([exited.then(() => true), sleep(20_000).then(() => false)])) === false) {
  violations.push('shutdown: some processes did not exit within 20 s of SIGTERM; killed');
  for (const entry of processes) entry.proc.child.kill('SIGKILL');
  await exited;
}
probe.disconnect();
await Promise.race([mongoClient.close(), sleep(5000)]);
await receiver.close();
await redis.stop();
await mongo.stop();

for (const line of violations.slice(0, 30)) process.stdout.write(`  violation ${line}\n`);
if (violations.length > 30) process.stdout.write(`  … and ${violations.length - 30} more\n`);
const c = result?.counts;
if (!c) {
  process.stdout.write(`chaos: FAIL in ${Math.round((Date.now() - started) / 1000)} s before the run could be checked\n`);
  process.exit(1);
}
process.stdout.write(
  `chaos: ${violations.length === 0 ? 'PASS' : 'FAIL'} in ${Math.round((Date.now() - started) / 1000)} s: ${c.jobs} jobs, ${c.occurrences} occurrences due, ` +
    `${c.executions} executions (${c.succeeded} succeeded, ${c.failed} failed, ${c.pending} pending), ${c.attempts} attempts (${c.failedAttempts} failed, ${c.timedoutAttempts} timed out, ${c.crashedAttempts} crashed), ` +
    `${c.deliveries} deliveries (${c.duplicateDeliveries} repeats after a 2xx, all of crashed attempts; ${c.tooManyRequests} answered 429; at most ${c.flowPeak} at once on the flow-controlled key); lost ${c.lost}, doubled ${c.doubled}, unfinished ${c.unfinished}, ` +
    `violations ${violations.length}; chaos: ${takeovers.length} leader kills (takeover ${takeovers.map((t) => (t / 1000).toFixed(1)).join(', ')} s), ` +
    `${workerKills} worker kills, 1 Redis restart without data, MongoDB paused ${MONGO_PAUSE_MS / 1000} s\n`,
);
process.exit(violations.length === 0 ? 0 : 1);
