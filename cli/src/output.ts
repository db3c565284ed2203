/** Where commands write: tables for people, JSON (one document, or one line per event) with --json. */
export interface Output {
  json: boolean;
  out: (text: string) => void;
}

export function printJson(output: Output, value: unknown): void {
  output.out(JSON.stringify(value, null, 2) + '\n');
}

/** Columns padded to their widest cell; empty values shown as "-". */
export function table(rows: Record<string, unknown>[], columns: string[]): string {
  const cells = rows.map((row) => columns.map((c) => cell(row[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) => values.map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join('\n') + '\n';
}

/** One "key  value" line per field. */
export function details(record: Record<string, unknown>): string {
  const width = Math.max(...Object.keys(record).map((k) => k.length));
  return Object.entries(record).map(([k, v]) => `${k.padEnd(width)}  ${cell(v)}`).join('\n') + '\n';
}

function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
