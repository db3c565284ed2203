import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { ExecutionSummary } from './api/types.js';

/** Colours by outcome, shared with the CSS badges. */
const COLOURS: Record<string, string> = {
  SUCCEEDED: '#16a34a',
  FAILED: '#dc2626',
  RUNNING: '#2563eb',
  RETRYING: '#d97706',
  CANCELLED: '#6b7280',
  SKIPPED: '#9ca3af',
  QUEUED: '#7c3aed',
  SCHEDULED: '#a5b4fc',
};
const LAG_COLOUR = 'rgba(217, 119, 6, 0.45)';

/** Mounts a uPlot chart in a div that follows its container's width. */
function useChart(build: (width: number) => uPlot.Options, data: uPlot.AlignedData, deps: unknown[]) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const plot = new uPlot(build(element.clientWidth || 600), data, element);
    const resize = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: plot.height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  return box;
}

/**
 * The last hour's executions, one row per job: a faint bar from scheduled time to start (start lag),
 * then a bar from start to finish (duration) coloured by outcome. uPlot draws the axes, grid and
 * cursor; the bars are drawn in its draw hook, the way its timeline examples do.
 */
export function Timeline({ executions, now }: { executions: ExecutionSummary[]; now: number }) {
  const jobs = [...new Set(executions.map((e) => e.job?.name ?? '(deleted job)'))].slice(0, 12);
  const rowOf = new Map(jobs.map((name, i) => [name, i]));
  const since = now / 1000 - 3600;
  const height = Math.max(140, 44 + jobs.length * 26);
  const box = useChart(
    (width) => ({
      width,
      height,
      legend: { show: false },
      cursor: { y: false, points: { show: false } },
      scales: { x: { time: true, range: [since, now / 1000] }, y: { range: [-0.6, Math.max(jobs.length, 1) - 0.4] } },
      axes: [
        { stroke: '#64748b', grid: { stroke: '#eef2f7' } },
        {
          stroke: '#64748b',
          size: 120,
          grid: { show: false },
          splits: () => jobs.map((_, i) => i),
          values: (_u, splits) => splits.map((i) => truncate(jobs[i] ?? '', 16)),
        },
      ],
      series: [{}, { show: false }],
      hooks: {
        draw: [
          (u) => {
            const ctx = u.ctx;
            const rowHeight = Math.max(6, Math.abs(u.valToPos(0, 'y', true) - u.valToPos(1, 'y', true)) * 0.55);
            ctx.save();
            ctx.beginPath();
            ctx.rect(u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height);
            ctx.clip();
            for (const e of executions) {
              const row = rowOf.get(e.job?.name ?? '(deleted job)');
              if (row === undefined) continue;
              const y = u.valToPos(row, 'y', true) - rowHeight / 2;
              const scheduled = Date.parse(e.scheduledFor) / 1000;
              const started = e.startedAt ? Date.parse(e.startedAt) / 1000 : null;
              const finished = e.finishedAt ? Date.parse(e.finishedAt) / 1000 : started !== null ? now / 1000 : null;
              if (started !== null) {
                const x0 = u.valToPos(scheduled, 'x', true);
                ctx.fillStyle = LAG_COLOUR;
                ctx.fillRect(x0, y, Math.max(1, u.valToPos(started, 'x', true) - x0), rowHeight);
              }
              const from = started ?? scheduled;
              const x1 = u.valToPos(from, 'x', true);
              const x2 = finished !== null ? u.valToPos(finished, 'x', true) : x1;
              ctx.fillStyle = COLOURS[e.status] ?? '#94a3b8';
              ctx.fillRect(x1, y, Math.max(3 * devicePixelRatio, x2 - x1), rowHeight);
            }
            ctx.restore();
          },
        ],
      },
    }),
    [[since, now / 1000], [null, null]],
    [executions, now, width()],
  );
  if (executions.length === 0) return <p class="muted empty">No executions in the last hour.</p>;
  return <div class="chart" ref={box} data-testid="timeline" />;
}

/** Start-lag buckets, in milliseconds (upper bounds). */
const BUCKETS = [50, 100, 250, 500, 1000, 2500, 5000, 10_000, Infinity];

/** 250 → "250 ms", 2500 → "2.5 s": a bucket bound, as short as it can be. */
function bound(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${ms / 1000} s`;
}

/**
 * How long executions waited past their scheduled time before starting: a histogram of start lag.
 * The bucket labels are HTML under the plot, one grid cell per bar, rather than canvas text, which ran
 * into each other: a cell wraps its label ("<250" over "ms"), and on a narrow chart every other one
 * gives way (styles.css).
 */
export function LagHistogram({ executions }: { executions: ExecutionSummary[] }) {
  const lags = executions.map((e) => e.startLagMs).filter((l): l is number => l !== null);
  const counts = BUCKETS.map(() => 0);
  for (const lag of lags) counts[BUCKETS.findIndex((upper) => lag < upper)]! += 1;
  const labels = BUCKETS.map((upper, i) => (upper === Infinity ? `≥${bound(BUCKETS[i - 1]!)}` : `<${bound(upper)}`));
  const labelRow = useRef<HTMLDivElement>(null);
  const box = useChart(
    (width) => ({
      width,
      height: 170,
      legend: { show: false },
      cursor: { points: { show: false } },
      scales: { x: { time: false, range: [-0.5, BUCKETS.length - 0.5] }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.15)] } },
      axes: [
        { stroke: '#64748b', grid: { show: false }, size: 10, splits: () => BUCKETS.map((_, i) => i), values: (_u, splits) => splits.map(() => '') },
        { stroke: '#64748b', grid: { stroke: '#eef2f7' }, size: 40 },
      ],
      series: [{}, { label: 'executions', fill: 'rgba(37, 99, 235, 0.75)', stroke: '#2563eb', paths: uPlot.paths.bars!({ size: [0.7, 60] }), points: { show: false } }],
      hooks: {
        // Lines the label cells up with the plotting area, which uPlot sizes (in canvas pixels) on each draw.
        draw: [
          (u) => {
            const row = labelRow.current;
            if (!row) return;
            row.style.marginLeft = `${u.bbox.left / uPlot.pxRatio}px`;
            row.style.width = `${u.bbox.width / uPlot.pxRatio}px`;
          },
        ],
      },
    }),
    [BUCKETS.map((_, i) => i), counts],
    [counts.join(','), width()],
  );
  if (lags.length === 0) return <p class="muted empty">No execution started in the last hour.</p>;
  return (
    <div class="histogram" data-testid="lag-histogram">
      <div class="chart" ref={box} />
      <div class="histogram-labels" ref={labelRow} style={{ gridTemplateColumns: `repeat(${BUCKETS.length}, minmax(0, 1fr))` }}>
        {labels.map((label) => (
          <span key={label}>
            <span class="histogram-label">{label}</span>
          </span>
        ))}
      </div>
    </div>
  );
}

/** Re-create charts when the window's width class changes (the ResizeObserver handles the rest). */
function width(): number {
  return innerWidth < 700 ? 0 : 1;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
