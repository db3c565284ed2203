import { GraphQLError, createSourceEventStream, execute, print, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { relayedEventKey } from '../events/relayedEvent.js';
import { errorMessage } from '../logger.js';

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

type Result = ExecutionResult | Promise<ExecutionResult>;

/** Results kept per audience, its latest events': how far behind the first of them its other subscribers may be and still share. */
const RESULTS_PER_AUDIENCE = 256;

/** The subscribers of one audience open on this process, and their latest results by event key. */
interface Audience {
  subscribers: number;
  results: Map<string, Result>;
}

/**
 * graphql-ws's `subscribe` (graphql's own, event stream then one `execute` per event and
 * subscriber), except that subscribers that sent the same document with the same variables, as the
 * same tenant and role (`audience`), share one execution of each event: a tenant's 200 dashboards on
 * one process cost one execution per event, not 200, and each subscriber only serialises and sends
 * the result. An event is named by `eventKey` (default: a relayed event's key, the same for every
 * subscriber whatever object each is given), and each audience keeps the results of its latest
 * `resultsPerAudience` events while it has subscribers; a payload without a key is executed apart.
 * `audience(contextValue)` returns null to opt a subscriber out (it executes its own).
 */
export function sharedSubscribe(
  audience: (contextValue: unknown) => string | null,
  eventKey: (payload: unknown) => string | null = relayedEventKey,
  resultsPerAudience = RESULTS_PER_AUDIENCE,
) {
  const audiences = new Map<string, Audience>();
  return async (args: ExecutionArgs): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> => {
    const source = await createSourceEventStream(args);
    if (!(Symbol.asyncIterator in source)) return source;
    const executeOn = (payload: unknown): Result => execute({ ...args, rootValue: payload });
    const who = audience(args.contextValue);
    if (who === null) return mapEvents(source[Symbol.asyncIterator](), executeOn, () => undefined);
    const key = `${who}\u0000${args.operationName ?? ''}\u0000${JSON.stringify(args.variableValues ?? {})}\u0000${print(args.document)}`;
    let found = audiences.get(key);
    if (!found) audiences.set(key, (found = { subscribers: 0, results: new Map() }));
    const shared = found;
    shared.subscribers++;
    const resultOf = (payload: unknown): Result => {
      const event = eventKey(payload);
      if (event === null) return executeOn(payload);
      let result = shared.results.get(event);
      if (!result) {
        shared.results.set(event, (result = executeOn(payload)));
        if (shared.results.size > resultsPerAudience) shared.results.delete(shared.results.keys().next().value!);
      }
      return result;
    };
    const leave = () => {
      if (--shared.subscribers === 0 && audiences.get(key) === shared) audiences.delete(key);
    };
    return mapEvents(source[Symbol.asyncIterator](), resultOf, leave);
  };
}

/**
 * The source stream mapped through `map`; closing it (the client unsubscribes) closes the source.
 * `end` is called once, when the stream ends whichever way.
 */
function mapEvents(
  source: AsyncIterator<unknown>,
  map: (payload: unknown) => Result,
  end: () => void,
): AsyncIterableIterator<ExecutionResult> {
  let ended = false;
  const finish = async () => {
    if (!ended) end();
    ended = true;
    await source.return?.();
  };
  const iterator: AsyncIterableIterator<ExecutionResult> = {
    async next() {
      if (ended) return { value: undefined, done: true };
      let step: IteratorResult<unknown>;
      try {
        step = await source.next();
      } catch (error) {
        // The stream ended with an error (the tenant's event budget, a failed read): sent as this
        // operation's last result, formatted like any other, instead of graphql-ws closing the whole
        // socket. graphql-ws does not close a stream that ended, so the source is closed here.
        await finish();
        const graphqlError =
          error instanceof GraphQLError ? error : new GraphQLError(errorMessage(error), { originalError: asError(error) });
        return { value: { errors: [graphqlError] }, done: false };
      }
      if (!step.done) return { value: await map(step.value), done: false };
      if (!ended) end();
      ended = true;
      return { value: undefined, done: true };
    },
    async return() {
      await finish();
      return { value: undefined, done: true };
    },
    async throw(error: unknown) {
      await finish();
      throw error;
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
