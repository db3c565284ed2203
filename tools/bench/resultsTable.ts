/** One case of `npm run bench` (tools/bench/throughput.ts): what ran and what it measured. */
export interface BenchRow {
  case: string;
  /** Executions (BullMQ and Agenda: jobs) the case ran. */
  n: number;
  started: number;
  /** Executions finished per second, from due time to the last end; NaN when not measured. */
  perSecond: number;
  /** Start lag (start minus due time), in milliseconds. */
  lagMs?: { p50: number; p90: number; p99: number; max: number };
  perExecution?: { mongoCommands: number; mongoWrites: number; mongoDocsChanged: number; redisRoundTrips: number; redisCommands: number };
  settings: string;
  /** Cores each process used over the measured window (Kairos cases). */
  cores?: Record<string, number>;
}

interface Column {
  /** Names the unit of every figure under it (`exec` = one execution, or one BullMQ or Agenda job). */
  header: string;
  cell: (row: BenchRow) => string;
}

const fmt = (x: number | undefined, digits = 0) => (x === undefined || Number.isNaN(x) ? '-' : x.toFixed(digits));

/** The printed table's columns, in order: the unit is in each header, not in a note beside the table. */
export const BENCH_COLUMNS: readonly Column[] = [
  { header: 'case', cell: (r) => r.case },
  { header: 'n (exec)', cell: (r) => String(r.n) },
  { header: 'started (exec)', cell: (r) => String(r.started) },
  { header: 'exec/s', cell: (r) => fmt(r.perSecond) },
  { header: 'lag p50 (ms)', cell: (r) => fmt(r.lagMs?.p50) },
  { header: 'lag p90 (ms)', cell: (r) => fmt(r.lagMs?.p90) },
  { header: 'lag p99 (ms)', cell: (r) => fmt(r.lagMs?.p99) },
  { header: 'lag max (ms)', cell: (r) => fmt(r.lagMs?.max) },
  { header: 'mongo cmd/exec', cell: (r) => fmt(r.perExecution?.mongoCommands, 2) },
  { header: 'write stmts/exec', cell: (r) => fmt(r.perExecution?.mongoWrites, 2) },
  { header: 'docs changed/exec', cell: (r) => fmt(r.perExecution?.mongoDocsChanged, 2) },
  { header: 'redis rt/exec', cell: (r) => fmt(r.perExecution?.redisRoundTrips, 2) },
  { header: 'redis cmd/exec', cell: (r) => fmt(r.perExecution?.redisCommands, 2) },
];

/** The rows as a plain-text table: the case left-aligned, figures right-aligned, columns two spaces apart, `-` where not measured. */
export function formatBenchTable(rows: readonly BenchRow[]): string {
  const lines = rows.map((r) => BENCH_COLUMNS.map((c) => c.cell(r)));
  const widths = BENCH_COLUMNS.map((c, i) => Math.max(c.header.length, ...lines.map((l) => l[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(BENCH_COLUMNS.map((c) => c.header)), ...lines.map(line)].join('\n');
}
