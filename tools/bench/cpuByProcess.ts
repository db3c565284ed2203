import { readFileSync, readdirSync } from 'node:fs';

/** CPU seconds used so far (user + system), by process name, with the processes named in `labels` (pid → name) under that name. Linux /proc only; empty elsewhere. */
export function cpuByProcess(labels: Map<number, string>): Map<string, number> {
  const ticks = 100; // USER_HZ on Linux
  const totals = new Map<string, number>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return totals;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // comm is in parentheses and may hold spaces; the fields after it are space-separated.
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      const seconds = (Number(fields[11]) + Number(fields[12])) / ticks;
      const name = labels.get(Number(pid)) ?? comm;
      totals.set(name, (totals.get(name) ?? 0) + seconds);
    } catch {
      // Gone meanwhile.
    }
  }
  return totals;
}

/** Cores used by each name between two readings over `seconds`, busiest first, those above 0.02. */
export function coresUsed(before: Map<string, number>, after: Map<string, number>, seconds: number): Record<string, number> {
  const rows = [...after].map(([name, total]) => [name, (total - (before.get(name) ?? 0)) / seconds] as const);
  return Object.fromEntries(
    rows
      .filter(([, cores]) => cores > 0.02)
      .sort((a, b) => b[1] - a[1])
      .map(([name, cores]) => [name, Math.round(cores * 100) / 100]),
  );
}
