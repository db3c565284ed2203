import { ObjectId, type Db } from 'mongodb';
import type { ExecutionDoc } from '#kairos/domain/execution.js';
import { ensureIndexes } from '#kairos/store/indexes.js';
import { ExecutionStore } from '#kairos/store/executionStore.js';
import { SchedulerStore } from '#kairos/store/schedulerStore.js';
import { parsePageRequest, type PageRequest } from '#kairos/pagination/pageRequest.js';
import { finishedExecution } from './finishedExecution.js';
import { figures, inParallel, progress, timeRepeatedly, type Figures, type ScaleTable } from './scaleSupport.js';

export interface HistoryOptions {
  /** Executions in the whole collection. */
  collection: number;
  /** Executions of each measured tenant (ascending); the rest of the collection belongs to other tenants. */
  tenantSizes: number[];
  /** Rows per page (the API's default). */
  pageSize: number;
  /** Which page is measured as "deep" (1-based). */
  deepPage: number;
  samples: number;
  /** Time bound per measured case. */
  budgetMs: number;
}

export interface HistoryRow {
  tenantSize: number;
  first: Figures;
  deep: Figures;
  byJob: Figures;
}

const LOAD_CHUNK = 1000;
const LOAD_CONCURRENCY = 3;
const HISTORY_SPAN_MS = 30 * 86_400_000;

/**
 * History: a tenant's `executions` pages through ExecutionStore.list (what the `executions`
 * resolver calls), newest first, with `collection` executions stored across many tenants. The
 * measured tenants' rows are interleaved with everyone else's, as the scheduler writes them.
 */
export async function measureHistory(
  db: Db,
  options: HistoryOptions,
): Promise<{ rows: HistoryRow[]; failures: string[]; loadMs: number; loadPerSecond: number }> {
  await ensureIndexes(db);
  const sizes = options.tenantSizes;
  // Row i belongs to measured tenant k when i % stride[k] === k (strides large enough not to collide).
  const strides = sizes.map((size) => Math.floor(options.collection / size));
  const tenantOf = (i: number): number => strides.findIndex((stride, k) => i % stride === k);
  const jobs = Array.from({ length: 10 }, () => new ObjectId());
  // Each measured tenant's rows in insertion order, i.e. oldest first: [_id, scheduledFor, jobId index].
  const measured: { id: ObjectId; at: Date; job: number }[][] = sizes.map(() => []);
  const end = Date.now() - 60_000;
  const store = new SchedulerStore(db);
  const chunks = Array.from({ length: Math.ceil(options.collection / LOAD_CHUNK) }, (_, c) => c);
  const started = Date.now();
  let loaded = 0;
  await inParallel(chunks, LOAD_CONCURRENCY, async (c) => {
    const docs: ExecutionDoc[] = [];
    for (let i = c * LOAD_CHUNK; i < Math.min(options.collection, (c + 1) * LOAD_CHUNK); i++) {
      const k = tenantOf(i);
      const at = new Date(end - HISTORY_SPAN_MS + Math.floor((i * HISTORY_SPAN_MS) / options.collection));
      // Jobs change every 1 000 rows, so each tenant has rows of every job.
      const j = Math.floor(i / 1000) % jobs.length;
      const doc = finishedExecution(k >= 0 ? `history-${k}` : `other-${i % 97}`, jobs[j], at, i);
      if (k >= 0) measured[k].push({ id: doc._id, at, job: j });
      docs.push(doc);
    }
    await store.insertExecutions(docs);
    loaded += docs.length;
    if (c % 100 === 99) progress(`history: ${loaded} executions loaded`);
  });
  const loadMs = Date.now() - started;
  const rows: HistoryRow[] = [];
  const failures: string[] = [];
  for (const [k, size] of sizes.entries()) {
    const executions = new ExecutionStore(db, `history-${k}`);
    // Chunks land out of order: sort as the list does, newest first.
    const own = measured[k].sort((a, b) => b.at.getTime() - a.at.getTime() || b.id.toHexString().localeCompare(a.id.toHexString()));
    const first = parsePageRequest({ first: options.pageSize });
    // The cursor the client holds after `deepPage - 1` pages: the last row of the page before.
    const last = own[Math.min(own.length - 1, (options.deepPage - 1) * options.pageSize - 1)];
    const deep: PageRequest = { ...first, after: { at: last.at, id: last.id } };
    const run =
      (page: PageRequest, jobId: ObjectId | null = null) =>
      async () => {
        const result = await executions.list({ jobId }, page);
        if (result.length === 0) throw new Error('history: an empty page');
      };
    const bound = { samples: options.samples, budgetMs: options.budgetMs };
    const timed = async (label: string, fn: () => Promise<void>): Promise<Figures> => {
      try {
        return figures(await timeRepeatedly(fn, bound));
      } catch (error) {
        failures.push(`${size} in the tenant, ${label}: ${error instanceof Error ? error.message : String(error)}`);
        return figures([]);
      }
    };
    rows.push({
      tenantSize: size,
      first: await timed('first page', run(first)),
      deep: await timed(`page ${options.deepPage}`, run(deep)),
      byJob: await timed('first page of one job', run(first, jobs[0])),
    });
    progress(`history: tenant of ${size} measured`);
  }
  return { rows, failures, loadMs, loadPerSecond: (options.collection / loadMs) * 1000 };
}

export function historyTable(result: Awaited<ReturnType<typeof measureHistory>>, options: HistoryOptions): ScaleTable {
  return {
    title: `History: a tenant's executions pages (ExecutionStore.list, as the resolver calls it; ${options.pageSize} a page, newest first) with ${options.collection.toLocaleString('en-US')} executions in the collection`,
    sizeLabel: 'executions in the tenant',
    columns: [
      { label: 'first page p50 ms' },
      { label: 'first page p99 ms', ratio: true },
      { label: `page ${options.deepPage} p99 ms`, ratio: true },
      { label: 'first page of one job p99 ms', ratio: true },
      { label: 'samples' },
    ],
    rows: result.rows.map((r) => ({
      size: r.tenantSize.toLocaleString('en-US').replace(/,/g, ' '),
      values: [r.first.p50, r.first.p99, r.deep.p99, r.byJob.p99, `${r.first.n} / ${r.deep.n} / ${r.byJob.n}`],
    })),
    notes: [
      ...result.failures,
      `Loaded with insertMany in chunks of ${LOAD_CHUNK}, ${LOAD_CONCURRENCY} at once: ${Math.round(result.loadPerSecond)} executions/s (${(result.loadMs / 1000).toFixed(0)} s).`,
    ],
  };
}
