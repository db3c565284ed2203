import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';

/**
 * The structured logger every part is handed: one JSON line per event (pino) with `time` (ISO),
 * `level` (a word), `msg` and the fields. Secrets are redacted on the way out (see REDACTED_PATHS
 * and scrubSecrets), but still never pass them in `fields` on purpose.
 */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** A logger whose lines all carry `fields` too (e.g. tenantId, jobId, executionId). */
  child(fields: Record<string, unknown>): Logger;
}

/** Levels from most to least verbose; `silent` writes nothing. */
export const LOG_LEVELS = ['info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** What replaces a redacted value. */
export const REDACTED = '[REDACTED]';

const SECRET_KEYS = [
  'authorization',
  'Authorization',
  'token',
  'accessToken',
  'refreshToken',
  'secret',
  'apiKey',
  'webhookSecret',
  'previousWebhookSecret',
  'password',
  '"x-api-key"',
];

/**
 * pino `redact` paths: each secret key at the top level and up to two objects down (a `headers`
 * object inside a request, say). The wildcard syntax has no "any depth": scrubValue censors the same
 * keys deeper down, and scrubs string values whatever their depth.
 */
export const REDACTED_PATHS = SECRET_KEYS.flatMap((key) => {
  const path = key.startsWith('"') ? `[${key}]` : key;
  const nested = key.startsWith('"') ? `[${key}]` : `.${key}`;
  return [path, `*${nested}`, `*.*${nested}`];
});

// A JWT is three base64url parts and its header always starts `{"` (base64url `eyJ`). DNS lowercases host names in error messages, hence the `i`.
const JWT_SHAPE = /eyj[a-z0-9_-]{8,}\.[a-z0-9_-]{8,}\.[a-z0-9_-]*/gi;
// A Kairos API key (apiKeys/apiKeySecret's `kairos_` and base62, spelled here because every layer logs; a test ties the two).
// A shorter tail still counts: a cut or mistyped key is still most of a key.
const API_KEY_SHAPE = /kairos_[0-9A-Za-z]{8,}/g;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;

/** Replaces what looks like a JWT, an API key or a bearer credential inside a string (error messages can carry them). */
export function scrubSecrets(text: string): string {
  return text.replace(BEARER, `$1 ${REDACTED}`).replace(JWT_SHAPE, REDACTED).replace(API_KEY_SHAPE, REDACTED);
}

const SECRET_KEY_SET = new Set(SECRET_KEYS.map((key) => key.replace(/"/g, '').toLowerCase()));

/** A copy of `value` with secret keys censored and every string scrubbed (plain objects and arrays, to a bounded depth). */
function scrubValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubSecrets(value);
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (value instanceof Error) return scrubSecrets(value.message);
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value))
    out[key] = SECRET_KEY_SET.has(key.toLowerCase()) ? REDACTED : scrubValue(item, depth + 1);
  return out;
}

function scrubFields(fields: Record<string, unknown> | undefined): Record<string, unknown> {
  return fields ? (scrubValue(fields) as Record<string, unknown>) : {};
}

function wrap(log: PinoLogger): Logger {
  // The level is checked first so that a line below LOG_LEVEL costs no scrubbing.
  const write = (level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => {
    if (log.isLevelEnabled(level)) log[level](scrubFields(fields), scrubSecrets(msg));
  };
  return {
    info: (msg, fields) => write('info', msg, fields),
    warn: (msg, fields) => write('warn', msg, fields),
    error: (msg, fields) => write('error', msg, fields),
    child: (fields) => wrap(log.child(scrubFields(fields))),
  };
}

/**
 * A logger writing at `level` and above to `out`: a function given each line (tests), a stream
 * (pino-pretty in development), or stderr by default, written synchronously so the last lines
 * before `process.exit` are not lost.
 */
export function createLogger(
  base: Record<string, unknown> = {},
  level: LogLevel = 'info',
  out?: ((line: string) => void) | DestinationStream,
): Logger {
  const destination: DestinationStream =
    out === undefined
      ? pino.destination({ dest: 2, sync: true })
      : typeof out === 'function'
        ? { write: (line: string) => out(line) }
        : out;
  const log = pino(
    {
      level,
      base: scrubFields(base),
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: REDACTED },
    },
    destination,
  );
  return wrap(log);
}

/** Turns anything thrown into a message safe for logs (no stack, bounded length). */
export function errorMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 2000 ? text.slice(0, 2000) + '…' : text;
}
