import type { Schedule } from './api/types.js';

/** Pure formatting helpers; `now` is passed in so they stay testable. */

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** "every 90 seconds" → "every 1 min 30 s" style: the largest units that divide the interval. */
export function intervalInWords(seconds: number): string {
  if (seconds % 86_400 === 0) return `every ${seconds === 86_400 ? 'day' : plural(seconds / 86_400, 'day')}`;
  if (seconds % 3600 === 0) return `every ${seconds === 3600 ? 'hour' : plural(seconds / 3600, 'hour')}`;
  if (seconds % 60 === 0) return `every ${seconds === 60 ? 'minute' : plural(seconds / 60, 'minute')}`;
  return `every ${seconds === 1 ? 'second' : plural(seconds, 'second')}`;
}

function two(n: string): string {
  return n.padStart(2, '0');
}

function dayList(field: string): string | null {
  if (field === '1-5') return 'on weekdays';
  if (field === '0,6' || field === '6,0') return 'on weekends';
  const parts = field.split(',');
  if (parts.every((p) => /^[0-7]$/.test(p))) return `on ${parts.map((p) => DAYS[Number(p) % 7]).join(', ')}`;
  return null;
}

/** What cronInWords says of a cron it has no words for: the expression itself. */
export function cronFallback(cron: string): string {
  return `cron ${cron}`;
}

/** Common cron shapes in words; anything else is shown as the expression itself (cronFallback). */
export function cronInWords(cron: string): string {
  const fields = cron.trim().split(/\s+/);
  const [sec, min, hour, dom, mon, dow] = fields.length === 6 ? fields : ['0', ...fields];
  if (fields.length !== 5 && fields.length !== 6) return cronFallback(cron);
  const plain = dom === '*' && mon === '*';
  if (plain && dow === '*' && hour === '*' && min === '*' && sec === '*') return 'every second';
  if (plain && dow === '*' && hour === '*' && min === '*' && /^\*\/\d+$/.test(sec)) return intervalInWords(Number(sec.slice(2)));
  if (plain && dow === '*' && hour === '*' && sec === '0' && min === '*') return 'every minute';
  if (plain && dow === '*' && hour === '*' && sec === '0' && /^\*\/\d+$/.test(min)) return intervalInWords(Number(min.slice(2)) * 60);
  if (plain && dow === '*' && hour === '*' && sec === '0' && /^\d+$/.test(min)) return `every hour at minute ${min}`;
  // Only a step that divides the day is a true interval (*/5 runs at 20:00 and again at 00:00).
  if (plain && dow === '*' && sec === '0' && min === '0' && /^\*\/\d+$/.test(hour) && 24 % Number(hour.slice(2)) === 0) {
    return intervalInWords(Number(hour.slice(2)) * 3600);
  }
  if (plain && sec === '0' && /^\d+$/.test(min) && /^\d+$/.test(hour)) {
    const at = `at ${two(hour)}:${two(min)}`;
    if (dow === '*') return `every day ${at}`;
    const days = dayList(dow);
    if (days) return `${at} ${days}`;
  }
  if (mon === '*' && dow === '*' && sec === '0' && /^\d+$/.test(dom) && /^\d+$/.test(min) && /^\d+$/.test(hour)) {
    return `on day ${dom} of every month at ${two(hour)}:${two(min)}`;
  }
  return cronFallback(cron);
}

/** The schedule in words, with the zone a cron is read in. */
export function scheduleInWords(schedule: Schedule): string {
  if (schedule.kind === 'INTERVAL' && schedule.intervalSeconds) return intervalInWords(schedule.intervalSeconds);
  if (schedule.kind === 'ONCE' && schedule.runAt) return `once, ${absolute(schedule.runAt, schedule.timezone)}`;
  if (schedule.cron) return cronInWords(schedule.cron);
  return 'unknown schedule';
}

/** "in 5 min", "3 h ago"; `now` in epoch ms. */
export function relative(iso: string, now: number): string {
  const diff = Date.parse(iso) - now;
  const abs = Math.abs(diff);
  let text: string;
  if (abs < 1000) return 'now';
  if (abs < 60_000) text = `${Math.round(abs / 1000)} s`;
  else if (abs < 3_600_000) text = `${Math.round(abs / 60_000)} min`;
  else if (abs < 86_400_000) text = `${Math.round(abs / 3_600_000)} h`;
  else text = `${Math.round(abs / 86_400_000)} d`;
  return diff > 0 ? `in ${text}` : `${text} ago`;
}

/** A date-time in `timeZone` (default: the browser's), e.g. "3 Dec 2026, 09:15:02". */
export function absolute(iso: string, timeZone?: string): string {
  const options: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'medium', hourCycle: 'h23' };
  try {
    return new Intl.DateTimeFormat('en-GB', { ...options, timeZone }).format(new Date(iso));
  } catch {
    return new Intl.DateTimeFormat('en-GB', options).format(new Date(iso));
  }
}

/** 950 → "950 ms", 1500 → "1.5 s", 200000 → "3 min 20 s". */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** The UTC offset at the end of an ISO-8601 local time ("2026-03-29T03:00:00+02:00" → "+02:00"). */
export function offsetOf(local: string): string {
  return /([+-]\d\d:\d\d|Z)$/.exec(local)?.[1] ?? '';
}

/** Indexes of occurrences whose UTC offset differs from the one before: a DST change happened in between. */
export function offsetChanges(locals: string[]): Set<number> {
  const changes = new Set<number>();
  for (let i = 1; i < locals.length; i++) if (offsetOf(locals[i]!) !== offsetOf(locals[i - 1]!)) changes.add(i);
  return changes;
}

/** Share of SUCCEEDED among finished executions (SUCCEEDED or FAILED), or null when none finished. */
export function successRate(statuses: string[]): number | null {
  const finished = statuses.filter((s) => s === 'SUCCEEDED' || s === 'FAILED');
  if (finished.length === 0) return null;
  return finished.filter((s) => s === 'SUCCEEDED').length / finished.length;
}

/** A job's labels as the dashboard writes them: `key=value`, separated by commas. */
export function labelsText(labels: readonly { key: string; value: string }[]): string {
  return labels.map(({ key, value }) => `${key}=${value}`).join(', ');
}

/**
 * `key=value, key=value` as typed (commas or line breaks between labels) to the API's labels; an entry
 * without `=` is a key with an empty value. The API validates keys and values and says what to fix.
 */
export function parseLabelsText(text: string): { key: string; value: string }[] {
  return text
    .split(/[,\n]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const at = entry.indexOf('=');
      return at < 0 ? { key: entry, value: '' } : { key: entry.slice(0, at).trim(), value: entry.slice(at + 1).trim() };
    });
}
