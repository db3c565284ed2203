/** A minimal structured logger: one JSON line per event on stderr. Never pass secrets or tokens in `fields`. */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

/** Levels from most to least verbose; `silent` writes nothing. */
export const LOG_LEVELS = ['info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function createLogger(base: Record<string, unknown> = {}, level: LogLevel = 'info', out: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const lowest = LOG_LEVELS.indexOf(level);
  const write = (lvl: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => {
    if (LOG_LEVELS.indexOf(lvl) < lowest) return;
    out(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...base, ...fields }) + '\n');
  };
  return {
    info: (msg, fields) => write('info', msg, fields),
    warn: (msg, fields) => write('warn', msg, fields),
    error: (msg, fields) => write('error', msg, fields),
    child: (fields) => createLogger({ ...base, ...fields }, level, out),
  };
}

/** Turns anything thrown into a message safe for logs (no stack, bounded length). */
export function errorMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 2000 ? text.slice(0, 2000) + '…' : text;
}
