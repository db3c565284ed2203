import type { ExecutionEventBus, ExecutionEventMessage } from './executionEventBus.js';

/**
 * The bus as an async iterator of `tenantId`'s events that pass `accept`, in arrival order. Events are
 * buffered while the consumer is busy (bounded: the oldest are dropped past `maxBuffered`).
 * Written by hand rather than as an async generator: a generator's `return()` would wait for the
 * next matching event, so a closed subscription with a quiet filter would never unsubscribe.
 */
export async function eventStream(
  bus: ExecutionEventBus,
  tenantId: string,
  accept: (event: ExecutionEventMessage) => boolean,
  maxBuffered = 10_000,
): Promise<AsyncIterableIterator<ExecutionEventMessage>> {
  const buffer: ExecutionEventMessage[] = [];
  let waiting: ((result: IteratorResult<ExecutionEventMessage>) => void) | null = null;
  let done = false;
  const unsubscribe = await bus.subscribe(tenantId, (event) => {
    if (done || !accept(event)) return;
    if (waiting) {
      const resolve = waiting;
      waiting = null;
      resolve({ value: event, done: false });
      return;
    }
    buffer.push(event);
    if (buffer.length > maxBuffered) buffer.shift();
  });
  const finish = async (): Promise<IteratorResult<ExecutionEventMessage>> => {
    done = true;
    unsubscribe();
    buffer.length = 0;
    waiting?.({ value: undefined, done: true });
    waiting = null;
    return { value: undefined, done: true };
  };
  const iterator: AsyncIterableIterator<ExecutionEventMessage> = {
    next: () => {
      if (buffer.length > 0) return Promise.resolve({ value: buffer.shift()!, done: false });
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => (waiting = resolve));
    },
    return: finish,
    throw: async (error?: unknown) => {
      await finish();
      throw error;
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
