import { ObjectId, type Db } from 'mongodb';
import type { Redis } from 'ioredis';
import WebSocket from 'ws';
import type { KairosConfig } from '#kairos/config.js';
import { signDevToken } from '#kairos/auth/verifyToken.js';
import { spawnKairos, type KairosProcess } from '../servers/kairosProcess.js';
import { freePort } from '../servers/localServers.js';
import { toGlobalId } from '#kairos/ids/globalId.js';
import { ensureIndexes } from '#kairos/store/indexes.js';
import { JobStore } from '#kairos/store/jobStore.js';
import { coresUsed, cpuByProcess } from './cpuByProcess.js';
import { benchJob, figures, progress, residentBytes, sleep, type Figures, type ScaleTable } from './scaleSupport.js';

export interface WatchersOptions {
  /** Subscriptions held by the one api process, per measured case (ascending). */
  sizes: number[];
  /** Subscriptions per tenant (within the default caps: 200 subscriptions and 100 sockets a tenant). */
  perTenant: number;
  subscriptionsPerSocket: number;
  /** How long events are measured once the executions run. */
  measureMs: number;
  /** Each tenant has one job running every this many seconds. */
  jobIntervalSeconds: number;
}

export interface WatchersRow {
  subscriptions: number;
  sockets: number;
  tenants: number;
  /** Redis clients subscribed to the event channel (one per api process is the design). */
  redisSubscribers: number;
  /** RSS and V8 heap growth of the api process per idle socket and per idle subscription, bytes. */
  rssPerSocket: number;
  rssPerSubscription: number;
  heapPerSubscription: number;
  /** Event written (its occurredAt) to delivered to a subscriber, ms. */
  latency: Figures;
  eventsPerSecond: number;
  executionsPerSecond: number;
  apiCores: number;
  errors: string[];
}

const SUBSCRIPTION =
  'subscription($jobId: ID, $statuses: [ExecutionStatus!]) { executionUpdated(jobId: $jobId, statuses: $statuses) { status previousStatus occurredAt execution { id status scheduledFor } } }';

/** A scrape of the api's /metrics: one sample's value (the first series of that name). */
async function metric(metricsUrl: string, name: string): Promise<number> {
  const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(10_000) })).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : NaN;
}

/**
 * Watchers: one api process (`node dist/main.js`, api role only) holds `subscriptions`
 * graphql-ws subscriptions from this process, `perTenant` per tenant over sockets of
 * `subscriptionsPerSocket` each; per socket, half the subscriptions take every event of the
 * tenant, a quarter only its job's (jobId), a quarter only SUCCEEDED and FAILED (statuses). Memory
 * is read idle (sockets open, then subscriptions open). Then each tenant's job runs every
 * `jobIntervalSeconds` (a scheduler and worker in a second process) and every event received is
 * timed from its `occurredAt` (set by the writer at the status change, just before its MongoDB
 * write) to its arrival here. The api process's Redis subscriptions are counted with PUBSUB NUMSUB.
 */
export async function measureWatchers(
  config: KairosConfig,
  db: Db,
  redis: Redis,
  prefix: string,
  subscriptions: number,
  options: WatchersOptions,
): Promise<WatchersRow> {
  await ensureIndexes(db);
  const secret = 'bench-scale-watchers-secret-of-enough-length';
  const mongoUrl = new URL(config.mongoUrl);
  mongoUrl.pathname = `/${db.databaseName}`;
  const env = {
    MONGO_URL: mongoUrl.toString(),
    REDIS_URL: config.redisUrl,
    REDIS_PREFIX: prefix,
    JWT_SECRET: secret,
    KAIROS_MODE: 'production',
    DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '100000',
  };
  const tenants = Math.max(1, Math.ceil(subscriptions / options.perTenant));
  const jobIds = Array.from({ length: tenants }, () => new ObjectId());
  const processes: KairosProcess[] = [];
  const sockets: WebSocket[] = [];
  const latencies: number[] = [];
  const errors: string[] = [];
  let measuring = false;
  let received = 0;
  try {
    const api = await spawnKairos({ ...env, ROLES: 'api', PORT: String(await freePort()) }, { startTimeoutMs: 30_000 });
    processes.push(api);
    const pid = api.child.pid!;
    const metricsUrl = api.metricsUrl!;
    const wsUrl = api.url!.replace(/^http/, 'ws');
    await sleep(2000);
    const rssBefore = await residentBytes(pid);

    // Sockets first (connection_init, ack), to tell their memory from the subscriptions'.
    const plan: { tenant: number; socket: WebSocket; count: number }[] = [];
    for (let t = 0; t < tenants; t++) {
      const token = signDevToken(secret, { tenantId: `watch-${t}`, role: 'viewer' });
      const own = Math.min(options.perTenant, subscriptions - t * options.perTenant);
      const opened = [];
      for (let s = 0; s * options.subscriptionsPerSocket < own; s++) {
        opened.push(
          openSocket(wsUrl, token, (message) => {
            if (message.type === 'next') {
              const event = (message.payload as { data?: { executionUpdated?: { occurredAt: string } } }).data?.executionUpdated;
              if (measuring && event) {
                latencies.push(Date.now() - Date.parse(event.occurredAt));
                received++;
              }
            } else if (message.type === 'error' && errors.length < 10) errors.push(JSON.stringify(message.payload).slice(0, 200));
          }).then((socket) => {
            sockets.push(socket);
            plan.push({ tenant: t, socket, count: Math.min(options.subscriptionsPerSocket, own - s * options.subscriptionsPerSocket) });
          }),
        );
      }
      await Promise.all(opened);
    }
    await sleep(3000);
    const rssSockets = await residentBytes(pid);
    const heapSockets = await metric(metricsUrl, 'nodejs_heap_size_used_bytes');
    progress(`watchers ${subscriptions}: ${sockets.length} sockets open`);

    for (const { tenant, socket, count } of plan) {
      for (let i = 0; i < count; i++) {
        const kind = i % 4;
        const variables =
          kind === 2 ? { jobId: toGlobalId('Job', jobIds[tenant]) } : kind === 3 ? { statuses: ['SUCCEEDED', 'FAILED'] } : {};
        socket.send(JSON.stringify({ id: String(i), type: 'subscribe', payload: { query: SUBSCRIPTION, variables } }));
      }
    }
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(500)) {
      if ((await metric(metricsUrl, 'kairos_subscriptions_open')) >= subscriptions) break;
    }
    const open = await metric(metricsUrl, 'kairos_subscriptions_open');
    if (open < subscriptions) errors.push(`only ${open} of ${subscriptions} subscriptions open`);
    await sleep(3000);
    const rssSubscriptions = await residentBytes(pid);
    const heapSubscriptions = await metric(metricsUrl, 'nodejs_heap_size_used_bytes');
    const [, numsub] = (await redis.pubsub('NUMSUB', `${prefix}:execution-events`)) as [string, number];
    progress(`watchers ${subscriptions}: ${open} subscriptions open; ${numsub} Redis subscriber(s) on the event channel`);

    // Executions: one job per tenant every jobIntervalSeconds, first occurrences spread over one interval.
    const interval = options.jobIntervalSeconds * 1000;
    const first = Date.now() + 5000;
    for (let t = 0; t < tenants; t++) {
      await new JobStore(db, `watch-${t}`).insertMany([
        benchJob({
          _id: jobIds[t],
          name: 'watched',
          cursor: new Date(first + Math.floor((t * interval) / tenants)),
          intervalSeconds: options.jobIntervalSeconds,
          status: 'ACTIVE',
        }),
      ]);
    }
    processes.push(await spawnKairos({ ...env, ROLES: 'scheduler,worker' }, { startTimeoutMs: 30_000 }));
    await sleep(Math.max(0, first + interval - Date.now()));
    const cpuBefore = cpuByProcess(new Map([[pid, 'api']]));
    measuring = true;
    const measureStarted = Date.now();
    await sleep(options.measureMs);
    measuring = false;
    const seconds = (Date.now() - measureStarted) / 1000;
    const cpu = coresUsed(cpuBefore, cpuByProcess(new Map([[pid, 'api']])), seconds);
    const executions = (tenants * options.measureMs) / interval;
    progress(`watchers ${subscriptions}: ${received} events received in ${seconds.toFixed(0)} s`);
    return {
      subscriptions,
      sockets: sockets.length,
      tenants,
      redisSubscribers: Number(numsub),
      rssPerSocket: (rssSockets - rssBefore) / sockets.length,
      rssPerSubscription: (rssSubscriptions - rssSockets) / subscriptions,
      heapPerSubscription: (heapSubscriptions - heapSockets) / subscriptions,
      latency: figures(latencies),
      eventsPerSecond: received / seconds,
      executionsPerSecond: executions / seconds,
      apiCores: cpu.api ?? 0,
      errors,
    };
  } finally {
    for (const socket of sockets) socket.terminate();
    for (const p of processes.reverse()) {
      p.child.kill('SIGTERM');
      await new Promise((resolve) => (p.child.exitCode !== null ? resolve(null) : p.child.once('exit', resolve)));
    }
  }
}

function openSocket(url: string, token: string, onMessage: (message: { type: string; payload?: unknown }) => void): Promise<WebSocket> {
  const socket = new WebSocket(url, 'graphql-transport-ws');
  return new Promise((resolve, reject) => {
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } })));
    socket.on('message', (raw) => {
      const message = JSON.parse((raw as Buffer).toString()) as { type: string; payload?: unknown };
      if (message.type === 'connection_ack') resolve(socket);
      else if (message.type === 'ping') socket.send(JSON.stringify({ type: 'pong' }));
      else onMessage(message);
    });
    socket.on('close', (code, reason) => reject(new Error(`socket closed before its ack: ${code} ${reason.toString()}`)));
    socket.on('error', reject);
  });
}

export function watchersTable(rows: WatchersRow[], options: WatchersOptions): ScaleTable {
  const kib = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;
  return {
    title: `Watchers: one api process, graphql-ws subscriptions (${options.perTenant} a tenant, ${options.subscriptionsPerSocket} a socket; half unfiltered, a quarter by jobId, a quarter by statuses) while each tenant's job runs every ${options.jobIntervalSeconds} s; latency from an event's occurredAt (its status change) to its arrival at the subscriber`,
    sizeLabel: 'subscriptions',
    columns: [
      { label: 'sockets / tenants' },
      { label: 'latency p50 ms' },
      { label: 'latency p99 ms', ratio: true },
      { label: 'max ms' },
      { label: 'events delivered/s' },
      { label: 'api cores' },
      { label: 'RSS KiB per idle socket' },
      { label: 'RSS KiB per idle subscription', ratio: true },
      { label: 'heap KiB per idle subscription' },
      { label: 'Redis subscriptions' },
    ],
    rows: rows.map((r) => ({
      size: r.subscriptions.toLocaleString('en-US').replace(/,/g, ' '),
      values: [
        `${r.sockets} / ${r.tenants}`,
        r.latency.p50,
        r.latency.p99,
        r.latency.max,
        r.eventsPerSecond,
        r.apiCores,
        kib(r.rssPerSocket),
        kib(r.rssPerSubscription),
        kib(r.heapPerSubscription),
        r.redisSubscribers,
      ],
    })),
    notes: rows.flatMap((r) => r.errors.map((e) => `${r.subscriptions}: ${e}`)),
  };
}
