import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

/** An official graphql-ws client connected to a test server with a bearer token. */
export function wsClient(httpUrl: string, token: string | null): Client {
  return createClient({
    url: httpUrl.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
    lazy: true,
  });
}

/** Collects a subscription's payloads; tests wait on it for a condition with a timeout, never a sleep. */
export class EventCollector<T> {
  readonly items: T[] = [];
  private failure: Error | null = null;
  private waiters: (() => void)[] = [];
  private readonly unsubscribe: () => void;

  /** Subscribes `query` on a graphql-ws client, or reads an async iterator of events (the SDK's watchExecutions). */
  constructor(source: Client | AsyncIterableIterator<T>, query = '', variables: Record<string, unknown> = {}) {
    if (Symbol.asyncIterator in source) {
      const iterator = source;
      void (async () => {
        try {
          for (let r = await iterator.next(); !r.done; r = await iterator.next()) {
            this.items.push(r.value);
            this.notify();
          }
        } catch (error) {
          this.failure = error instanceof Error ? error : new Error(String(error));
        }
        this.notify();
      })();
      this.unsubscribe = () => void iterator.return?.();
      return;
    }
    const client = source;
    this.unsubscribe = client.subscribe<T>(
      { query, variables },
      {
        next: (value) => {
          if (value.errors) this.failure = new Error(JSON.stringify(value.errors));
          else this.items.push(value.data as T);
          this.notify();
        },
        error: (error) => {
          this.failure = error instanceof Error ? error : new Error(`subscription closed: ${JSON.stringify(error, ['code', 'reason'])}`);
          this.notify();
        },
        complete: () => this.notify(),
      },
    );
  }

  private notify(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves when `predicate(items)` holds; rejects on a subscription error or after `timeoutMs`. */
  async waitFor(predicate: (items: T[]) => boolean, timeoutMs: number): Promise<T[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.failure) throw this.failure;
      if (predicate(this.items)) return this.items;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`timed out after ${timeoutMs} ms with ${this.items.length} events: ${JSON.stringify(this.items).slice(0, 1500)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  stop(): void {
    this.unsubscribe();
    this.notify();
  }
}

/**
 * graphql-ws acknowledges the connection, not each subscription, so an event published before the
 * server has set a subscription up is missed. Calls `trigger` (which returns the id of an execution
 * it started) until one of those executions shows up in `events`, within `timeoutMs`.
 */
export async function triggerUntilSeen<T>(
  events: EventCollector<T>,
  executionIdOf: (item: T) => string,
  trigger: () => Promise<string>,
  timeoutMs = 10_000,
): Promise<void> {
  const triggered = new Set<string>();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    triggered.add(await trigger());
    try {
      await events.waitFor(
        (items) => items.some((item) => triggered.has(executionIdOf(item))),
        Math.max(1, Math.min(1000, deadline - Date.now())),
      );
      return;
    } catch (error) {
      if (Date.now() >= deadline) throw error;
    }
  }
}
