import type { Db } from 'mongodb';
import type { Redis } from 'ioredis';
import type { KairosConfig } from '#kairos/config.js';
import { createLogger } from '#kairos/logger.js';
import { createJob, type CreateJobDeps } from '#kairos/jobs/createJob.js';
import { ChangeLog } from '#kairos/changes/changeLog.js';
import { ChangeStore } from '#kairos/store/changeStore.js';
import { JobCounter } from '#kairos/quotas/jobCounter.js';
import { TenantLock } from '#kairos/quotas/tenantLock.js';
import { ExecutionQueues, QueueShards } from '#kairos/queue/executionQueues.js';
import { ExecutionEventBus } from '#kairos/events/executionEventBus.js';
import { DueIndex } from '#kairos/scheduler/dueIndex.js';
import { jobScheduling } from '#kairos/scheduler/jobScheduling.js';
import { ensureIndexes } from '#kairos/store/indexes.js';
import { CalendarStore } from '#kairos/store/calendarStore.js';
import { JobStore } from '#kairos/store/jobStore.js';
import { SchedulerStore } from '#kairos/store/schedulerStore.js';
import { TenantStore } from '#kairos/store/tenantStore.js';
import { BUILTIN_HANDLERS } from '#kairos/workers/handlers/builtins.js';
import { benchJob, figures, inParallel, progress, type Figures, type ScaleTable } from './scaleSupport.js';

export interface CreatesOptions {
  /** Jobs the tenant holds before the measured creates (ascending). */
  sizes: number[];
  /** Creates measured per size. */
  creates: number;
  /** Callers creating at once (all in the same tenant, so serialised by its create lock). */
  concurrency: number;
}

export interface CreatesRow {
  size: number;
  perSecond: number;
  latency: Figures;
  /** The first create, which seeds the tenant's counter from a count (once; again after a day). */
  seedMs: number;
  loadMs: number;
}

/**
 * Creating jobs: `createJob` (the operation the mutation calls, with its Redis create lock and job
 * counter) in a tenant that already holds `size` jobs, `concurrency` callers at once. The tenant's
 * earlier jobs are inserted with insertMany; its counter is missing at first, so the first create
 * seeds it from a count (timed apart), and the measured creates after it read only the counter.
 */
export async function measureCreates(
  config: KairosConfig,
  db: Db,
  redis: Redis,
  prefix: string,
  options: CreatesOptions,
): Promise<CreatesRow[]> {
  await ensureIndexes(db);
  const logger = createLogger({ bench: 'scale' }, 'warn');
  const queues = new ExecutionQueues(
    { url: config.redisUrl, maxRetriesPerRequest: null },
    prefix,
    () => undefined,
    new QueueShards(config.queueShards),
    null,
  );
  const events = new ExecutionEventBus(redis, prefix);
  const budget = { charge: async (_tenantId: string, wanted: number) => ({ allowed: wanted, perMinute: Infinity }) };
  const materialise = {
    store: new SchedulerStore(db),
    dueIndex: new DueIndex(redis, prefix),
    queues,
    events,
    logger,
    random: Math.random,
    budget,
  };
  const tenants = new TenantStore(db, { ...config.defaultQuota, ...config.defaultConnectionQuota });
  const rows: CreatesRow[] = [];
  try {
    for (const size of options.sizes) {
      const tenantId = `creates-${size}`;
      const jobs = new JobStore(db, tenantId);
      const loadStarted = Date.now();
      for (let i = 0; i < size; i += 1000) {
        await jobs.insertMany(
          Array.from({ length: Math.min(1000, size - i) }, (_, j) =>
            benchJob({ name: `existing ${i + j}`, cursor: null, intervalSeconds: 3600, status: 'PAUSED' }),
          ),
        );
      }
      const loadMs = Date.now() - loadStarted;
      const tenant = { ...(await tenants.ensure(tenantId, new Date())), maxJobs: 10_000_000 };
      const deps: CreateJobDeps = {
        jobs,
        calendars: new CalendarStore(db, tenantId),
        scheduling: jobScheduling(materialise, { lookAheadMs: config.lookAheadMs }),
        logger,
        handlerNames: new Set(BUILTIN_HANDLERS.keys()),
        allowPrivateTargets: false,
        createLock: new TenantLock(redis, prefix, 'create-job', logger),
        jobCounter: new JobCounter(redis, prefix),
        // Each create records its change as through the API: its insert is part of a create's cost.
        changes: new ChangeLog(new ChangeStore(db, tenantId), { subject: 'bench', apiKeyId: null, role: 'ADMIN' }, logger),
      };
      const input = (i: number) => ({ name: `new ${i}`, schedule: { intervalSeconds: 3600 }, target: { handler: 'noop' } });
      const seedStarted = performance.now();
      await createJob(deps, tenant, input(-1), new Date());
      const seedMs = performance.now() - seedStarted;
      const latencies: number[] = [];
      const started = performance.now();
      await inParallel(
        Array.from({ length: options.creates }, (_, i) => i),
        options.concurrency,
        async (i) => {
          const began = performance.now();
          await createJob(deps, tenant, input(i), new Date());
          latencies.push(performance.now() - began);
        },
      );
      const elapsed = performance.now() - started;
      rows.push({ size, perSecond: (options.creates / elapsed) * 1000, latency: figures(latencies), seedMs, loadMs });
      progress(`creates: tenant of ${size} jobs measured`);
    }
  } finally {
    await queues.close();
  }
  return rows;
}

export function createsTable(rows: CreatesRow[], options: CreatesOptions): ScaleTable {
  return {
    title: `Creating jobs: createJob in one tenant, ${options.concurrency} callers at once (serialised by the tenant's create lock), ${options.creates} creates per size`,
    sizeLabel: 'jobs in the tenant',
    columns: [
      { label: 'creates/s', ratio: true },
      { label: 'create p50 ms' },
      { label: 'create p99 ms', ratio: true },
      { label: 'first create (seeds the counter) ms' },
    ],
    rows: rows.map((r) => ({
      size: r.size.toLocaleString('en-US').replace(/,/g, ' '),
      values: [r.perSecond, r.latency.p50, r.latency.p99, r.seedMs],
    })),
    notes: [
      "The counter is seeded from a count when Redis has none (the first create, and once a day after): that one create reads all the tenant's jobs.",
    ],
  };
}
