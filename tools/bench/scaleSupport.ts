import os from 'node:os';
import { ObjectId } from 'mongodb';
import { DEFAULT_RETRY_POLICY } from '#kairos/domain/backoff.js';
import type { JobDoc, JobStatus } from '#kairos/domain/job.js';

/** Helpers shared by the parts of bench:scale (tools/bench/scale*.ts). */

export const progress = (what: string): void => {
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${what}\n`);
};

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export interface Figures {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

export function figures(samples: number[]): Figures {
  const s = [...samples].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 50), p99: percentile(s, 99), max: s.length ? s[s.length - 1] : NaN };
}

/** Runs `fn` over `items` with at most `concurrency` at once. */
export async function inParallel<T>(items: T[], concurrency: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i], i);
      }
    }),
  );
}

/**
 * Times `run` back to back until `samples` timings or `budgetMs` have passed (at least `minSamples`),
 * so a slow case stays bounded in time; the first call is a warm-up and not counted.
 */
export async function timeRepeatedly(
  run: () => Promise<unknown>,
  options: { samples: number; budgetMs: number; minSamples?: number },
): Promise<number[]> {
  await run();
  const timings: number[] = [];
  const started = Date.now();
  while (timings.length < options.samples && (timings.length < (options.minSamples ?? 3) || Date.now() - started < options.budgetMs)) {
    const began = performance.now();
    await run();
    timings.push(performance.now() - began);
  }
  return timings;
}

/** One table: a row per size, each figure with its ratio to the first (smallest) row's. */
export interface ScaleTable {
  title: string;
  sizeLabel: string;
  /** Columns: a figure, shown with its ratio when `ratio` is set. */
  columns: { label: string; ratio?: boolean }[];
  rows: { size: string; values: (number | string | null)[] }[];
  notes?: string[];
}

const show = (v: number | string | null): string =>
  v === null
    ? '-'
    : typeof v === 'string'
      ? v
      : Number.isFinite(v)
        ? Math.abs(v) >= 100
          ? Math.round(v).toLocaleString('en-US').replace(/,/g, ' ')
          : String(Math.round(v * 10) / 10)
        : '-';

export function formatTable(table: ScaleTable): string {
  const header = [table.sizeLabel, ...table.columns.flatMap((c) => (c.ratio ? [c.label, 'ratio'] : [c.label]))];
  const lines = [`\n${table.title}\n`, `| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  const base = table.rows[0];
  for (const row of table.rows) {
    const cells = [row.size];
    table.columns.forEach((c, i) => {
      const v = row.values[i];
      cells.push(show(v));
      if (c.ratio) {
        const b = base?.values[i];
        cells.push(typeof v === 'number' && typeof b === 'number' && b > 0 && Number.isFinite(v) ? (v / b).toFixed(2) : '-');
      }
    });
    lines.push(`| ${cells.join(' | ')} |`);
  }
  for (const note of table.notes ?? []) lines.push(`\n${note}`);
  return lines.join('\n') + '\n';
}

/** What the figures came from: cores, memory, load (the machine is shared, so they are noisy). */
export function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ')}`;
}

/** Resident memory of a process in bytes (Linux /proc; NaN elsewhere). */
export async function residentBytes(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+) kB/.exec(status);
    return kb ? Number(kb[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** A `noop` interval job as createJob stores it, for loading many at once (the tenant is the store's). */
export function benchJob(fields: {
  _id?: ObjectId;
  name: string;
  cursor: Date | null;
  intervalSeconds: number;
  status: JobStatus;
}): Omit<JobDoc, 'tenantId'> {
  const _id = fields._id ?? new ObjectId();
  const at = fields.cursor ?? new Date();
  return {
    _id,
    name: fields.name,
    nameLower: fields.name.toLowerCase(),
    description: null,
    schedule: { kind: 'INTERVAL', intervalSeconds: fields.intervalSeconds, timezone: 'UTC', jitterSeconds: 0 },
    target: { kind: 'HANDLER', handler: 'noop' },
    payloadJson: null,
    workload: 'IO_BOUND',
    timeoutSeconds: 60,
    retryPolicy: DEFAULT_RETRY_POLICY,
    overlapPolicy: 'ALLOW',
    misfirePolicy: 'RUN_ONCE',
    status: fields.status,
    scheduleCursor: fields.cursor,
    lastRunAt: null,
    idempotencyKey: `auto:${_id.toHexString()}`,
    createdAt: at,
    updatedAt: at,
    version: 1,
  };
}
