import type { ExecutionArgs } from 'graphql';

/**
 * Hands the gate turn a graphql-ws operation took in onSubscribe to its execution, which gives it
 * back when it ends. Kept by the operation's context object (each operation builds its own), since
 * graphql-ws passes nothing else from onSubscribe to `execute` and `subscribe`.
 */
export class OperationTurns {
  private readonly held = new WeakMap<object, () => void>();

  /** Keeps `release` until the execution whose contextValue is `contextValue` ends. */
  hand(contextValue: object, release: () => void): void {
    this.held.set(contextValue, release);
  }

  /**
   * `run` (graphql's execute, or a subscribe), giving back the turn handed with its contextValue once
   * it has settled: a query or mutation holds it while it executes, a subscription while its event
   * stream is set up (not while the stream lasts).
   */
  holding<R>(run: (args: ExecutionArgs) => R | Promise<R>): (args: ExecutionArgs) => Promise<R> {
    return async (args) => {
      const key = typeof args.contextValue === 'object' && args.contextValue !== null ? args.contextValue : null;
      const release = key ? this.held.get(key) : undefined;
      if (key) this.held.delete(key);
      try {
        return await run(args);
      } finally {
        release?.();
      }
    };
  }
}
