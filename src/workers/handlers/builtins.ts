import type { Handler, HandlerRegistry } from './handler.js';

/** Does nothing and succeeds: for testing schedules and measuring lag. */
const noop: Handler = async () => null;

/** Waits `payload.ms` milliseconds (default 1000, at most one hour), honouring the abort signal. */
const sleep: Handler = async ({ payload, signal }) => {
  const requested = (payload as { ms?: unknown } | null)?.ms;
  const ms = typeof requested === 'number' && Number.isFinite(requested) ? Math.min(Math.max(requested, 0), 3_600_000) : 1000;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      },
      { once: true },
    );
  });
  return { sleptMs: ms };
};

/**
 * Busy-loops `payload.ms` milliseconds (default 1000, at most one minute) without ever yielding, so
 * it ignores its abort signal: a stand-in for CPU-heavy work, which Kairos runs in a child process.
 */
const spin: Handler = async ({ payload }) => {
  const requested = (payload as { ms?: unknown } | null)?.ms;
  const ms = typeof requested === 'number' && Number.isFinite(requested) ? Math.min(Math.max(requested, 0), 60_000) : 1000;
  const until = Date.now() + ms;
  let turns = 0;
  while (Date.now() < until) turns++;
  return { spunMs: ms, turns };
};

export const BUILTIN_HANDLERS: HandlerRegistry = new Map([
  ['noop', noop],
  ['sleep', sleep],
  ['spin', spin],
]);
