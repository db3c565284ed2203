import { describe, expect, it } from '@jest/globals';
import { GraphQLObjectType, GraphQLSchema, GraphQLString, parse, type ExecutionResult } from 'graphql';
import { ObjectId } from 'mongodb';
import { sharedSubscribe } from '../../src/api/sharedSubscribe.js';
import { newExecution } from '../../src/domain/execution.js';
import { RelayedEvent } from '../../src/events/relayedEvent.js';
import { statusEvent } from '../../src/transitions/statusEvents.js';

interface Named {
  key?: string;
  name: string;
}

/**
 * A schema whose subscription hands each subscriber the events `eventsFor` makes for it (the same
 * objects, or copies) and counts field executions.
 */
function fixture(eventsFor: () => object[]) {
  let executions = 0;
  const Event = new GraphQLObjectType({
    name: 'Event',
    fields: {
      name: {
        type: GraphQLString,
        resolve: (e: Named | RelayedEvent) => {
          executions++;
          return e instanceof RelayedEvent ? e.event.status : e.name;
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
            for (const e of eventsFor()) yield e;
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

const keyOf = (payload: unknown) => (payload as Named).key ?? null;
const copies = (events: Named[]) => () => events.map((e) => ({ ...e }));

describe('sharedSubscribe', () => {
  const events: Named[] = [
    { key: 'a', name: 'a' },
    { key: 'b', name: 'b' },
  ];
  const doc = parse('subscription { tick { name } }');
  const run = (subscribe: ReturnType<typeof sharedSubscribe>, schema: GraphQLSchema, contextValue: unknown, document = doc) =>
    subscribe({ schema, document, contextValue });

  it('executes each event once for subscribers with the same document and audience, and gives each the result', async () => {
    const { schema, executions } = fixture(() => events);
    const subscribe = sharedSubscribe((c) => (c as { who: string }).who, keyOf);
    const [one, two] = await Promise.all([
      drain(await run(subscribe, schema, { who: 't1' })),
      drain(await run(subscribe, schema, { who: 't1' })),
    ]);
    expect(one).toEqual([{ data: { tick: { name: 'a' } } }, { data: { tick: { name: 'b' } } }]);
    expect(two).toEqual(one);
    expect(executions()).toBe(2);
  });

  it('shares by the event key, not the object: each subscriber given its own copy of an event still costs one execution', async () => {
    const { schema, executions } = fixture(copies(events));
    const subscribe = sharedSubscribe(() => 't1', keyOf);
    const [one, two] = await Promise.all([drain(await run(subscribe, schema, {})), drain(await run(subscribe, schema, {}))]);
    expect(two).toEqual(one);
    expect(executions()).toBe(2);
  });

  it('keys relayed events by their relay key by default, so equal messages relayed as distinct objects share', async () => {
    const doc0 = newExecution(
      {
        tenantId: 't1',
        jobId: new ObjectId(),
        occurrenceKey: 'k',
        trigger: 'SCHEDULE',
        workload: 'IO_BOUND',
        scheduledFor: new Date('2031-01-01T00:00:00Z'),
        maxAttempts: 1,
      },
      new Date('2031-01-01T00:00:00Z'),
    );
    const message = statusEvent(doc0, null, 'SCHEDULED', new Date('2031-01-01T00:00:00Z'));
    const relayed = () => [new RelayedEvent(JSON.parse(JSON.stringify(message)), doc0)];
    const { schema, executions } = fixture(relayed);
    const subscribe = sharedSubscribe(() => 't1');
    const [one, two] = await Promise.all([drain(await run(subscribe, schema, {})), drain(await run(subscribe, schema, {}))]);
    expect(one).toEqual([{ data: { tick: { name: 'SCHEDULED' } } }]);
    expect(two).toEqual(one);
    expect(executions()).toBe(1);
    // Anything else has no key: executed for each subscriber.
    const plain = fixture(() => [{ name: 'x' }]);
    const subscribePlain = sharedSubscribe(() => 't1');
    await Promise.all([drain(await run(subscribePlain, plain.schema, {})), drain(await run(subscribePlain, plain.schema, {}))]);
    expect(plain.executions()).toBe(2);
  });

  it('executes apart for another audience, another document, or an audience opted out (null)', async () => {
    const { schema, executions } = fixture(() => events);
    const subscribe = sharedSubscribe((c) => (c as { who: string | null }).who, keyOf);
    await drain(await run(subscribe, schema, { who: 't1' }));
    await drain(await run(subscribe, schema, { who: 't2' }));
    await drain(await run(subscribe, schema, { who: 't1' }, parse('subscription { tick(label: "x") { name } }')));
    await drain(await run(subscribe, schema, { who: null }));
    await drain(await run(subscribe, schema, { who: null }));
    expect(executions()).toBe(10);
  });

  it("keeps an audience's results of its latest events while it has subscribers", async () => {
    const three: Named[] = ['a', 'b', 'c'].map((k) => ({ key: k, name: k }));
    const { schema, executions } = fixture(copies(three));
    const subscribe = sharedSubscribe(() => 't1', keyOf, 2);
    const ahead = (await run(subscribe, schema, {})) as AsyncIterableIterator<ExecutionResult>;
    await ahead.next();
    await ahead.next();
    // Two events behind, within the two kept: shares a and b, and c is shared with the one ahead.
    await drain(await run(subscribe, schema, {}));
    await ahead.next();
    expect(executions()).toBe(3);
    await ahead.return!();
    // Every subscriber of the audience gone: its results went with them.
    await drain(await run(subscribe, schema, {}));
    expect(executions()).toBe(6);
    // Further behind than the results kept, a subscriber executes its own.
    const far = (await run(subscribe, schema, {})) as AsyncIterableIterator<ExecutionResult>;
    for (let i = 0; i < 3; i++) await far.next();
    await drain(await run(subscribe, schema, {}));
    expect(executions()).toBe(12);
    await far.return!();
  });

  it('passes errors of the event stream through as a result', async () => {
    const { schema } = fixture(() => events);
    const result = await sharedSubscribe(() => 'x')({ schema, document: parse('subscription { nope }') });
    expect(Symbol.asyncIterator in result).toBe(false);
    expect((result as ExecutionResult).errors?.[0].message).toMatch(/nope/);
  });

  it('ends with an error result when the stream fails, and closes it', async () => {
    let closed = 0;
    const failing: AsyncIterableIterator<object> = {
      next: () => Promise.reject(new Error('read failed')),
      return: async () => {
        closed++;
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]: () => failing,
    };
    const schema = new GraphQLSchema({
      query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLString } } }),
      subscription: new GraphQLObjectType({
        name: 'Subscription',
        fields: { tick: { type: GraphQLString, subscribe: () => failing, resolve: () => 'x' } },
      }),
    });
    const results = await drain(await sharedSubscribe(() => 't1')({ schema, document: parse('subscription { tick }') }));
    expect(results.map((r) => r.errors?.[0].message)).toEqual(['read failed']);
    expect(closed).toBe(1);
  });
});
