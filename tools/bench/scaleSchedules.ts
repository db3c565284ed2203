import { ObjectId, type Db } from 'mongodb';
import type { JobDoc } from '#kairos/domain/job.js';
import type { Redis } from 'ioredis';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { loadConfig, type KairosConfig } from '#kairos/config.js';
import { startKairos } from '#kairos/kairos.js';
import { createLogger } from '#kairos/logger.js';
import { DueIndex } from '#kairos/scheduler/dueIndex.js';
import { AuditStore } from '../audit/auditStore.js';
import { AlertSettingsStore } from '#kairos/store/alertSettingsStore.js';
import { ensureIndexes } from '#kairos/store/indexes.js';
import { ExecutionStore } from '#kairos/store/executionStore.js';
import { JobStore } from '#kairos/store/jobStore.js';
import { SPAN_ATTRIBUTES as A } from '#kairos/tracing/spanAttributes.js';
import { benchJob, figures, inParallel, progress, sleep, type Figures, type ScaleTable } from './scaleSupport.js';

export interface SchedulesOptions {
  sizes: number[];
  /** The measured window: start lag of every occurrence due in it. */
  windowMs: number;
  /** One-day schedules added with their first occurrence spread over the window, on top of the size's own (so that every size has enough samples). */
  probes: number;
}

export interface SchedulesRow {
  size: number;
  loadMs: number;
  /** Occurrences due in the window: the size's own and the probes. */
  due: number;
  started: number;
  lag: Figures;
  sweep: Figures;
  /** The leader's overdue-check passes in the window (every tenant has alert rules): duration, and queue entries read per pass. */
  overdue: Figures;
  overdueReadPerPass: number;
  /** Due jobs per sweep pass in the window (mean). */
  jobsPerPass: number;
  /** The leader's build of the due index from MongoDB when it starts leading (the index is missing, as after Redis lost it). */
  leaderRebuildMs: number | null;
  /** The range query the sweep asked before the due index, once (null above 100 000: it outlasts the socket timeout). */
  rangeMs: number | null;
}

const DAY = 86_400_000;
const TENANTS = 100;
const LOAD_CHUNK = 1000;
const LOAD_CONCURRENCY = 3;

/** Keeps the durations of the leader's sweep and overdue-check passes (their spans) and drops every other span. */
class SweepSpans implements SpanExporter {
  readonly passes: { endedAt: number; ms: number; jobs: number }[] = [];
  readonly overdueChecks: { endedAt: number; ms: number; read: number }[] = [];
  export(spans: ReadableSpan[], done: (result: { code: number }) => void): void {
    for (const span of spans) {
      const ms = span.duration[0] * 1000 + span.duration[1] / 1e6;
      const endedAt = span.endTime[0] * 1000 + span.endTime[1] / 1e6;
      if (span.name === 'scheduler.sweep') this.passes.push({ endedAt, ms, jobs: Number(span.attributes[A.sweepJobs] ?? 0) });
      else if (span.name === 'alerts.overdue_check')
        this.overdueChecks.push({ endedAt, ms, read: Number(span.attributes[A.overdueRead] ?? 0) });
    }
    done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
}

/**
 * Schedules: `size` active one-day interval schedules (100 tenants) whose occurrences are spread
 * evenly over a day, so about size / 1440 fall due each minute, plus `probes` schedules due in the
 * measured window. Kairos runs in this process with the scheduler (it becomes leader and builds
 * the due index from MongoDB, Redis having none) and worker roles: the real sweep every second, the real worker
 * running the `noop` handler. Measured: start lag (first attempt's start minus scheduledFor, from
 * MongoDB) of every occurrence due in the window, and the duration of each sweep pass in the window
 * (the leader's spans). The day is placed to begin after the leader is up, so no occurrence is
 * missed while loading; the window starts once the leader's build of the index is over.
 */
export async function measureSchedules(
  base: KairosConfig,
  db: Db,
  redis: Redis,
  prefix: string,
  size: number,
  options: SchedulesOptions,
): Promise<SchedulesRow> {
  await ensureIndexes(db);
  const loadStarted = Date.now();
  // Loading at about 8 000 jobs/s, the leader's rebuild at 4 000/s, and Kairos' start; when it
  // takes longer, the window starts later (below) and the first occurrences are simply run late.
  const dayStart = loadStarted + base.lookAheadMs + 20_000 + Math.ceil(size / 8) + Math.ceil(size / 4);
  const stores = Array.from({ length: TENANTS }, (_, t) => new JobStore(db, `sched-${t}`));
  const chunks = Array.from({ length: Math.ceil(size / LOAD_CHUNK) }, (_, c) => c);
  // Later occurrences first, so that a load slower than guessed leaves the earliest ones to the end.
  chunks.reverse();
  await inParallel(chunks, LOAD_CONCURRENCY, async (c) => {
    const byTenant = new Map<number, Omit<JobDoc, 'tenantId'>[]>();
    for (let i = c * LOAD_CHUNK; i < Math.min(size, (c + 1) * LOAD_CHUNK); i++) {
      const t = i % TENANTS;
      if (!byTenant.has(t)) byTenant.set(t, []);
      byTenant
        .get(t)!
        .push(
          benchJob({ name: `s${i}`, cursor: new Date(dayStart + Math.floor((i * DAY) / size)), intervalSeconds: 86_400, status: 'ACTIVE' }),
        );
    }
    await Promise.all([...byTenant].map(([t, jobs]) => stores[t].insertMany(jobs)));
    if (c % 100 === 0) progress(`schedules ${size}: loading (${chunks.length - chunks.indexOf(c)} of ${chunks.length} chunks)`);
  });
  await addAlertRules(db, TENANTS);
  const loadMs = Date.now() - loadStarted;
  // The due index is left to the leader: it finds the index not built and builds it from MongoDB,
  // as after Redis lost its data (timed below as the leader's rebuild).
  const dueIndex = new DueIndex(redis, prefix);
  progress(`schedules ${size}: loaded in ${loadMs} ms`);

  const spans = new SweepSpans();
  let leaderRebuiltAt: number | null = null;
  const logger = createLogger({ bench: 'scale' }, 'info', (line) => {
    const entry = JSON.parse(line) as { level?: string; msg?: string };
    if (entry.msg === 'refreshed the due index from MongoDB' || entry.msg === 'rebuilt the due index from MongoDB')
      leaderRebuiltAt ??= Date.now();
    else if (entry.level !== 'info') process.stderr.write(line);
  });
  const config = loadConfig(undefined, {
    JWT_SECRET: 'bench-scale-unused-secret-of-enough-length',
    MONGO_URL: base.mongoUrl,
    REDIS_URL: base.redisUrl,
    REDIS_PREFIX: prefix,
    ROLES: 'scheduler,worker',
    METRICS_PORT: '0',
    DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '1000000',
    DEFAULT_MAX_CONCURRENT_EXECUTIONS: '1000',
    WORKER_TENANT_SHARE_PERCENT: '100',
    ALERT_OVERDUE_CHECK_MS: '1000',
  });
  const startedAt = Date.now();
  const kairos = await startKairos({ config, dbName: db.databaseName, logger, traceExporter: spans });
  try {
    // Until the leader's own rebuild (Agenda runs it when leadership starts) is over, bounded.
    while (leaderRebuiltAt === null && Date.now() - startedAt < 30_000 + size / 2) await sleep(200);
    const leaderRebuildMs = leaderRebuiltAt === null ? null : leaderRebuiltAt - startedAt;
    const windowStart = Math.max(dayStart, Date.now() + config.lookAheadMs + 5000);
    const windowEnd = windowStart + options.windowMs;
    if (windowStart > dayStart)
      progress(
        `schedules ${size}: the leader was ready ${Math.round((windowStart - dayStart) / 1000)} s after the day began; the window starts later`,
      );
    // Probes: due in the window at even spacing, written like createJob does (the due index first).
    const probes = new JobStore(db, 'sched-probes');
    const probeJobs = Array.from({ length: options.probes }, (_, i) =>
      benchJob({
        name: `probe${i}`,
        cursor: new Date(windowStart + Math.floor((i * options.windowMs) / options.probes)),
        intervalSeconds: 86_400,
        status: 'ACTIVE',
      }),
    );
    for (const p of probeJobs) await dueIndex.expect(p._id, p.scheduleCursor);
    await probes.insertMany(probeJobs);
    const own = countDue(size, dayStart, windowStart, windowEnd);
    const due = own + options.probes;
    await sleep(Math.max(0, windowEnd - Date.now()));
    // Every occurrence of the window has started, or 60 s past its end.
    const tenants = [...Array.from({ length: TENANTS }, (_, t) => `sched-${t}`), 'sched-probes'];
    let lags: number[] = [];
    for (const deadline = Date.now() + 60_000; ; await sleep(1000)) {
      lags = [];
      for (const t of tenants)
        lags.push(...(await new ExecutionStore(db, t).startLags(new Date(windowStart), new Date(windowEnd), null, 100_000)));
      if (lags.length >= due || Date.now() > deadline) break;
    }
    const inWindow = spans.passes.filter((p) => p.endedAt >= windowStart && p.endedAt < windowEnd);
    const checks = spans.overdueChecks.filter((p) => p.endedAt >= windowStart && p.endedAt < windowEnd);
    let rangeMs: number | null = null;
    if (size <= 100_000) {
      const began = Date.now();
      // Past the client's 15 s socket timeout it fails: shown as Infinity ("-").
      rangeMs = await new AuditStore(db).firstDueByRange(new Date(Date.now() + config.lookAheadMs), 100).then(
        () => Date.now() - began,
        () => Infinity,
      );
    }
    progress(`schedules ${size}: ${lags.length} of ${due} started, ${inWindow.length} sweep passes in the window`);
    return {
      size,
      loadMs,
      due,
      started: lags.length,
      lag: figures(lags),
      sweep: figures(inWindow.map((p) => p.ms)),
      jobsPerPass: inWindow.reduce((sum, p) => sum + p.jobs, 0) / Math.max(1, inWindow.length),
      overdue: figures(checks.map((p) => p.ms)),
      overdueReadPerPass: checks.reduce((sum, p) => sum + p.read, 0) / Math.max(1, checks.length),
      leaderRebuildMs,
      rangeMs,
    };
  } finally {
    await kairos.stop();
  }
}

/**
 * Every tenant gets a channel and tenant-wide rules of each kind, so that every execution's end goes
 * through the alert evaluator and the leader's overdue check runs (each second here) over every job.
 */
async function addAlertRules(db: Db, tenants: number): Promise<void> {
  const at = new Date();
  for (let t = 0; t < tenants; t++) {
    const settings = new AlertSettingsStore(db, `sched-${t}`);
    const channel = await settings.insertChannel({
      _id: new ObjectId(),
      name: 'bench',
      url: 'https://alerts.invalid/bench',
      format: 'KAIROS',
      createdAt: at,
    });
    for (const [kind, threshold] of [
      ['CONSECUTIVE_FAILURES', 3],
      ['SKIPPED', 1],
      ['OVERDUE', 60],
    ] as const)
      await settings.insertRule({ _id: new ObjectId(), channelId: channel._id, jobId: null, kind, threshold, createdAt: at });
  }
}

/** How many of the size's own schedules fall due in [from, to). */
function countDue(size: number, dayStart: number, from: number, to: number): number {
  let n = 0;
  for (let i = 0; i < size; i++) {
    const at = dayStart + Math.floor((i * DAY) / size);
    if (at >= from && at < to) n++;
  }
  return n;
}

export function schedulesTables(rows: SchedulesRow[], options: SchedulesOptions): ScaleTable[] {
  const size = (r: SchedulesRow) => r.size.toLocaleString('en-US').replace(/,/g, ' ');
  return [
    {
      title: `Schedules: fire delay. Active one-day schedules spread over a day (about size / 1440 due a minute) plus ${options.probes} due in the window; start lag (first attempt's start minus scheduledFor, from MongoDB) of every occurrence due in a ${options.windowMs / 1000} s window, the leader and a worker (noop handler) running in this process`,
      sizeLabel: 'schedules',
      columns: [
        { label: 'occurrences in the window (started)' },
        { label: 'start lag p50 ms' },
        { label: 'start lag p99 ms', ratio: true },
        { label: 'max ms' },
      ],
      rows: rows.map((r) => ({ size: size(r), values: [`${r.due} (${r.started})`, r.lag.p50, r.lag.p99, r.lag.max] })),
    },
    {
      title:
        "Schedules: the leader's sweep and overdue check, one pass each a second, durations of the passes in the window (their spans); every tenant has tenant-wide alert rules (3 failures in a row, skipped, 60 s overdue)",
      sizeLabel: 'schedules',
      columns: [
        { label: 'sweep p50 ms', ratio: true },
        { label: 'sweep p99 ms', ratio: true },
        { label: 'due jobs / pass' },
        { label: 'overdue check p50 ms', ratio: true },
        { label: 'overdue check p99 ms', ratio: true },
        { label: 'entries read / check' },
        { label: 'old range query ms', ratio: true },
        { label: 'load s' },
        { label: "leader's index build s" },
      ],
      rows: rows.map((r) => ({
        size: size(r),
        values: [
          r.sweep.p50,
          r.sweep.p99,
          Math.round(r.jobsPerPass * 10) / 10,
          r.overdue.p50,
          r.overdue.p99,
          Math.round(r.overdueReadPerPass * 10) / 10,
          r.rangeMs,
          r.loadMs / 1000,
          r.leaderRebuildMs === null ? null : r.leaderRebuildMs / 1000,
        ],
      })),
      notes: [
        'The old range query ({status: ACTIVE, scheduleCursor <= horizon} sorted, what the sweep asked before the due index) is timed once, up to 100 000 schedules; "-" where it outlasted the 15 s socket timeout.',
      ],
    },
  ];
}
