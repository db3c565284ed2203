import { GraphQLError, createSourceEventStream, execute, print, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { errorMessage } from '../logger.js';

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

type Result = ExecutionResult | Promise<ExecutionResult>;

/**
 * graphql-ws's `subscribe` (graphql's own, event stream then one `execute` per event and
 * subscriber), except that subscribers that sent the same document with the same variables, as the
 * same tenant and role (`audience`), share one execution of each event: a tenant's 200 dashboards on
 * one process cost one execution per event, not 200, and each subscriber only serialises and sends
 * the result. Results are kept per source event object (a WeakMap), so they go with the event; the
 * subscription resolver hands every subscriber of an event the same object (subscription.resolver.ts).
 * `audience(contextValue)` returns null to opt a subscriber out (it executes its own).
 */
export function sharedSubscribe(audience: (contextValue: unknown) => string | null) {
  const shared = new WeakMap<object, Map<string, Result>>();
  return async (args: ExecutionArgs): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> => {
    const source = await createSourceEventStream(args);
    if (!(Symbol.asyncIterator in source)) return source;
    const who = audience(args.contextValue);
    const key =
      who === null
        ? null
        : `${who}\u0000${args.operationName ?? ''}\u0000${JSON.stringify(args.variableValues ?? {})}\u0000${print(args.document)}`;
    const resultOf = (payload: unknown): Result => {
      if (key === null || typeof payload !== 'object' || payload === null) return execute({ ...args, rootValue: payload });
      let byKey = shared.get(payload);
      if (!byKey) shared.set(payload, (byKey = new Map<string, Result>()));
      let result = byKey.get(key);
      if (!result) byKey.set(key, (result = execute({ ...args, rootValue: payload })));
      return result;
    };
    return mapEvents(source[Symbol.asyncIterator](), resultOf);
  };
}

/** The source stream mapped through `map`; closing it (the client unsubscribes) closes the source. */
function mapEvents(source: AsyncIterator<unknown>, map: (payload: unknown) => Result): AsyncIterableIterator<ExecutionResult> {
  let ended = false;
  const iterator: AsyncIterableIterator<ExecutionResult> = {
    async next() {
      if (ended) return { value: undefined, done: true };
      let step: IteratorResult<unknown>;
      try {
        step = await source.next();
      } catch (error) {
        // The stream ended with an error (the tenant's event budget): sent as this operation's
        // last result, formatted like any other, instead of graphql-ws closing the whole socket.
        ended = true;
        const graphqlError =
          error instanceof GraphQLError ? error : new GraphQLError(errorMessage(error), { originalError: asError(error) });
        return { value: { errors: [graphqlError] }, done: false };
      }
      return step.done ? { value: undefined, done: true } : { value: await map(step.value), done: false };
    },
    async return() {
      await source.return?.();
      return { value: undefined, done: true };
    },
    async throw(error: unknown) {
      await source.return?.();
      throw error;
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
