/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A parsed scrape: the families it declares (name → type) and its samples. */
export interface Scrape {
  families: Map<string, string>;
  samples: Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the Prometheus text format (version 0.0.4), as prom-client writes it. */
export function parseExposition(text: string): Scrape {
  const families = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) families.set(type[1], type[2]);
    if (line.startsWith('#') || line.trim() === '') continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return { families, samples };
}

/** The sum of the samples named `name` whose labels include `match`. */
export function total(scrape: Scrape, name: string, match: Record<string, string> = {}): number {
  return scrape.samples
    .filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/** GETs a /metrics URL and parses it. */
export async function scrape(url: string): Promise<Scrape> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  if (!/^text\/plain/.test(response.headers.get('content-type') ?? '')) throw new Error(`${url} is not the text format`);
  return parseExposition(await response.text());
}

/** The metric names a PromQL expression uses (Kairos's, and the process and Node.js defaults). */
export function metricNamesIn(expr: string): string[] {
  // Label values (quoted) are not names: drop strings first.
  const code = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  return [...new Set(code.match(/\b(?:kairos|process|nodejs)_[a-z0-9_]+\b/g) ?? [])];
}

/** The family a sample name belongs to: itself, or a histogram's for its _bucket, _sum and _count series. */
export function familyOf(name: string, families: Map<string, string>): string | null {
  if (families.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return base !== name && ['histogram', 'summary'].includes(families.get(base) ?? '') ? base : null;
}
