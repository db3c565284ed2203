/**
 * A push source as an async iterator of what it pushes, in push order: `subscribe` starts the
 * pushes and resolves with the function that stops them, called when the iterator is closed. Values
 * are buffered while the consumer is busy (bounded: the oldest are dropped past `maxBuffered`).
 * Written by hand rather than as an async generator: a generator's `return()` would wait for the
 * next value, so a closed subscription with a quiet filter would never unsubscribe.
 */
export async function eventStream<T>(
  subscribe: (push: (value: T) => void) => Promise<() => void>,
  maxBuffered = 10_000,
): Promise<AsyncIterableIterator<T>> {
  const buffer: T[] = [];
  let waiting: ((result: IteratorResult<T>) => void) | null = null;
  let done = false;
  const unsubscribe = await subscribe((value) => {
    if (done) return;
    if (waiting) {
      const resolve = waiting;
      waiting = null;
      resolve({ value, done: false });
      return;
    }
    buffer.push(value);
    if (buffer.length > maxBuffered) buffer.shift();
  });
  const finish = async (): Promise<IteratorResult<T>> => {
    done = true;
    unsubscribe();
    buffer.length = 0;
    waiting?.({ value: undefined, done: true });
    waiting = null;
    return { value: undefined, done: true };
  };
  const iterator: AsyncIterableIterator<T> = {
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
