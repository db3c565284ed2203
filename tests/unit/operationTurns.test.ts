import { describe, expect, it } from '@jest/globals';
import { parse, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import { OperationTurns } from '../../src/api/operationTurns.js';

const argsWith = (contextValue: unknown): ExecutionArgs => ({ schema: {} as GraphQLSchema, document: parse('{ a }'), contextValue });

describe("a graphql-ws operation's turn, handed from onSubscribe to its execution", () => {
  it('is given back once the execution has ended, not before', async () => {
    const turns = new OperationTurns();
    const context = {};
    let released = 0;
    turns.hand(context, () => void (released += 1));
    let finish!: (value: string) => void;
    const running = turns.holding(() => new Promise<string>((resolve) => (finish = resolve)))(argsWith(context));
    await new Promise((resolve) => setImmediate(resolve));
    expect(released).toBe(0);
    finish('done');
    expect(await running).toBe('done');
    expect(released).toBe(1);
  });

  it('is given back when the execution throws, and only once per hand-over', async () => {
    const turns = new OperationTurns();
    const context = {};
    let released = 0;
    turns.hand(context, () => void (released += 1));
    const failing = turns.holding(() => {
      throw new Error('boom');
    });
    await expect(failing(argsWith(context))).rejects.toThrow('boom');
    await expect(failing(argsWith(context))).rejects.toThrow('boom');
    expect(released).toBe(1);
  });

  it('runs an execution with no turn (an operation without a tenant) as it is', async () => {
    const turns = new OperationTurns();
    const run = turns.holding((args) => args.contextValue);
    expect(await run(argsWith({ other: true }))).toEqual({ other: true });
    expect(await run(argsWith(undefined))).toBeUndefined();
  });
});
