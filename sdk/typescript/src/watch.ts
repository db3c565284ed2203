import type { Client, ExecutionResult } from 'graphql-ws';
import { closeCodeError } from './closeCodes.js';
import { KairosError, type GraphQLErrorPayload } from './errors.js';

/** Reconnection of the WebSocket behind watchExecutions. */
export interface ReconnectOptions {
  /** Reconnection attempts in a row before the iterator throws NETWORK_ERROR. Default Infinity. */
  attempts?: number;
  /** First delay; doubled per attempt, with up to 50 % random jitter added. Default 500 ms. */
  initialDelayMs?: number;
  /** Largest delay. Default 30 000 ms. */
  maxDelayMs?: number;
}

/** The wait before reconnection attempt `retries` (0-based): exponential backoff with jitter, so many clients do not reconnect in step. */
export function backoffMs(retries: number, options: ReconnectOptions = {}, random: () => number = Math.random): number {
  const base = Math.min(options.maxDelayMs ?? 30_000, (options.initialDelayMs ?? 500) * 2 ** retries);
  return Math.round(base * (1 + random() * 0.5));
}

/**
 * One graphql-ws subscription as an async iterator. graphql-ws reconnects a dropped socket (with the
 * backoff the client was made with) and subscribes again; events published while the socket was
 * down are not replayed. `return()` (a `break` out of `for await`) unsubscribes at once, even while
 * a `next()` is pending, which then resolves as done.
 */
export function subscriptionIterator<TData, TItem>(
  client: Promise<Client>,
  payload: { query: string; variables: Record<string, unknown> },
  pick: (data: TData) => TItem,
  signal?: AbortSignal,
): AsyncIterableIterator<TItem> {
  const buffered: TItem[] = [];
  let pending: { resolve: (r: IteratorResult<TItem>) => void; reject: (e: unknown) => void } | null = null;
  let failure: KairosError | null = null;
  let finished = false;
  let unsubscribe: (() => void) | null = null;

  const settle = () => {
    if (!pending) return;
    const { resolve, reject } = pending;
    if (buffered.length) {
      pending = null;
      resolve({ value: buffered.shift() as TItem, done: false });
    } else if (failure) {
      pending = null;
      reject(failure);
    } else if (finished) {
      pending = null;
      resolve({ value: undefined, done: true });
    }
  };
  const end = (error?: KairosError) => {
    if (finished) return;
    finished = true;
    if (error) failure = error;
    unsubscribe?.();
    unsubscribe = null;
    signal?.removeEventListener('abort', onAbort);
    settle();
  };
  const onAbort = () => end();
  if (signal?.aborted) finished = true;
  else signal?.addEventListener('abort', onAbort, { once: true });

  client.then(
    (ws) => {
      if (finished) return;
      unsubscribe = ws.subscribe<Record<string, unknown>>(payload, {
        next: (result: ExecutionResult<Record<string, unknown>>) => {
          if (result.errors?.length) return end(KairosError.fromGraphQLErrors(result.errors as unknown as GraphQLErrorPayload[]));
          if (result.data) buffered.push(pick(result.data as TData));
          settle();
        },
        error: (error: unknown) => end(socketError(error)),
        complete: () => end(),
      });
    },
    (error: unknown) => end(socketError(error)),
  );

  const iterator: AsyncIterableIterator<TItem> = {
    next: () =>
      new Promise<IteratorResult<TItem>>((resolve, reject) => {
        if (pending) return reject(new Error('next() called again before the previous call resolved'));
        pending = { resolve, reject };
        settle();
      }),
    return: async () => {
      end();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

/** What graphql-ws reports (a close event, GraphQL errors, a socket error) as a KairosError. */
export function socketError(error: unknown): KairosError {
  if (error instanceof KairosError) return error;
  if (Array.isArray(error)) return KairosError.fromGraphQLErrors(error as GraphQLErrorPayload[]);
  if (isCloseEvent(error)) {
    const reason = error.reason || `WebSocket closed with code ${error.code}`;
    return new KairosError(closeCodeError(error.code), reason, { details: { closeCode: error.code } });
  }
  const message = error instanceof Error ? error.message : typeof error === 'object' && error && 'message' in error ? String((error as { message: unknown }).message) : 'WebSocket error';
  return new KairosError('NETWORK_ERROR', `Subscription connection failed: ${message}`, { cause: error });
}

function isCloseEvent(value: unknown): value is { code: number; reason: string } {
  return typeof value === 'object' && value !== null && 'code' in value && typeof (value as { code: unknown }).code === 'number' && 'reason' in value;
}
