import type { Handler, HandlerRegistry } from './handler.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** Does nothing and succeeds: for testing schedules and measuring lag. */
const noop: Handler = async () => null;

/** Waits `payload.ms` milliseconds (default 1000, at most one hour), honouring the abort signal. */
const sleepHandler: Handler = async ({ payload, signal }) => {
  const requested = (payload as { ms?: unknown } | null)?.ms;
  const ms = typeof requested === 'number' && Number.isFinite(requested) ? Math.min(Math.max(requested, 0), 3_600_000) : 1000;
  await sleep(ms, undefined, { signal }).catch((error: unknown) => {
    // The abort's own reason (cancelled, shutting down) says why, not timers' generic AbortError.
    throw signal.aborted ? (signal.reason instanceof Error ? signal.reason : new Error('aborted')) : error;
  });
  return { sleptMs: ms };
};

export const BUILTIN_HANDLERS: HandlerRegistry = new Map([
  ['noop', noop],
  ['sleep', sleepHandler],
]);
