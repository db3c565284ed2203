/** A minimal structured logger: one JSON line per event on stderr. Never pass secrets or tokens in `fields`. */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export function createLogger(base: Record<string, unknown> = {}, level: 'info' | 'warn' | 'silent' = 'info'): Logger {
  const write = (lvl: string, msg: string, fields?: Record<string, unknown>) => {
    if (level === 'silent' || (level === 'warn' && lvl === 'info')) return;
    process.stderr.write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...base, ...fields }) + '\n');
  };
  return {
    info: (msg, fields) => write('info', msg, fields),
    warn: (msg, fields) => write('warn', msg, fields),
    error: (msg, fields) => write('error', msg, fields),
    child: (fields) => createLogger({ ...base, ...fields }, level),
  };
}

/** Turns anything thrown into a message safe for logs (no stack, bounded length). */
export function errorMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 2000 ? text.slice(0, 2000) + '…' : text;
}
