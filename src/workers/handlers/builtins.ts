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

export const BUILTIN_HANDLERS: HandlerRegistry = new Map([
  ['noop', noop],
  ['sleep', sleep],
]);
