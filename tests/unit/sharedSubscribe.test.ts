import { describe, expect, it } from '@jest/globals';
import { GraphQLObjectType, GraphQLSchema, GraphQLString, parse, type ExecutionResult } from 'graphql';
import { sharedSubscribe } from '../../src/api/sharedSubscribe.js';

/** A schema whose subscription hands every subscriber the same event objects (as the relay does) and counts field executions. */
function fixture(events: object[]) {
  let executions = 0;
  const Event = new GraphQLObjectType({
    name: 'Event',
    fields: {
      name: {
        type: GraphQLString,
        resolve: (e: { name: string }) => {
          executions++;
          return e.name;
        },
      },
    },
  });
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLString } } }),
    subscription: new GraphQLObjectType({
      name: 'Subscription',
      fields: {
        tick: {
          type: Event,
          args: { label: { type: GraphQLString } },
          subscribe: async function* () {
            for (const e of events) yield e;
          },
          resolve: (e: object) => e,
        },
      },
    }),
  });
  return { schema, executions: () => executions };
}

async function drain(result: AsyncIterableIterator<ExecutionResult> | ExecutionResult): Promise<ExecutionResult[]> {
  const all: ExecutionResult[] = [];
  if (!(Symbol.asyncIterator in result)) return [result];
  for await (const r of result) all.push(r);
  return all;
}

describe('sharedSubscribe', () => {
  const events = [{ name: 'a' }, { name: 'b' }];
  const doc = parse('subscription { tick { name } }');
  const run = (subscribe: ReturnType<typeof sharedSubscribe>, schema: GraphQLSchema, contextValue: unknown, document = doc) =>
    subscribe({ schema, document, contextValue });

  it('executes each event once for subscribers with the same document and audience, and gives each the result', async () => {
    const { schema, executions } = fixture(events);
    const subscribe = sharedSubscribe((c) => (c as { who: string }).who);
    const [one, two] = await Promise.all([
      drain(await run(subscribe, schema, { who: 't1' })),
      drain(await run(subscribe, schema, { who: 't1' })),
    ]);
    expect(one).toEqual([{ data: { tick: { name: 'a' } } }, { data: { tick: { name: 'b' } } }]);
    expect(two).toEqual(one);
    expect(executions()).toBe(2);
  });

  it('executes apart for another audience, another document, or an audience opted out (null)', async () => {
    const { schema, executions } = fixture(events);
    const subscribe = sharedSubscribe((c) => (c as { who: string | null }).who);
    await drain(await run(subscribe, schema, { who: 't1' }));
    await drain(await run(subscribe, schema, { who: 't2' }));
    await drain(await run(subscribe, schema, { who: 't1' }, parse('subscription { tick(label: "x") { name } }')));
    await drain(await run(subscribe, schema, { who: null }));
    await drain(await run(subscribe, schema, { who: null }));
    expect(executions()).toBe(10);
  });

  it('passes errors of the event stream through as a result', async () => {
    const { schema } = fixture(events);
    const result = await sharedSubscribe(() => 'x')({ schema, document: parse('subscription { nope }') });
    expect(Symbol.asyncIterator in result).toBe(false);
    expect((result as ExecutionResult).errors?.[0].message).toMatch(/nope/);
  });
});
