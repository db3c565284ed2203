import type { ExecutionEventBus, ExecutionEventMessage } from './executionEventBus.js';

/**
 * The bus as an async iterator of the events that pass `accept`, in arrival order. Events are
 * buffered while the consumer is busy (bounded: the oldest are dropped past `maxBuffered`).
 * Returning from the iterator unsubscribes.
 */
export async function* eventStream(
  bus: ExecutionEventBus,
  accept: (event: ExecutionEventMessage) => boolean,
  maxBuffered = 10_000,
): AsyncGenerator<ExecutionEventMessage> {
  const buffer: ExecutionEventMessage[] = [];
  let wake: (() => void) | null = null;
  const unsubscribe = await bus.subscribe((event) => {
    if (!accept(event)) return;
    buffer.push(event);
    if (buffer.length > maxBuffered) buffer.shift();
    wake?.();
  });
  try {
    for (;;) {
      while (buffer.length > 0) yield buffer.shift()!;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
    }
  } finally {
    unsubscribe();
  }
}
