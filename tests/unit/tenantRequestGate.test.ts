import { describe, expect, it } from '@jest/globals';
import { TenantRequestGate } from '../../src/api/tenantRequestGate.js';

/** Resolves what is settled so far, so a test can see which enters are still waiting. */
const settled = async () => new Promise((resolve) => setImmediate(resolve));

describe("a tenant's turns at GraphQL operations", () => {
  it('runs `inFlight` at once, queues the next `queued` in arrival order, and refuses beyond', async () => {
    const gate = new TenantRequestGate({ inFlight: 2, queued: 2 });
    const first = await gate.enter('a');
    const second = await gate.enter('a');
    const order: string[] = [];
    const third = gate.enter('a').then((release) => (order.push('third'), release));
    const fourth = gate.enter('a').then((release) => (order.push('fourth'), release));
    await settled();
    expect(order).toEqual([]);
    expect(gate.load('a')).toEqual({ running: 2, waiting: 2 });
    expect(await gate.enter('a')).toBeNull();

    second!();
    await settled();
    expect(order).toEqual(['third']);
    first!();
    await settled();
    expect(order).toEqual(['third', 'fourth']);
    expect(gate.load('a')).toEqual({ running: 2, waiting: 0 });
    (await third)!();
    (await fourth)!();
    expect(gate.load('a')).toEqual({ running: 0, waiting: 0 });
  });

  it("gives each tenant its own turns: one tenant's queue never delays another's request", async () => {
    const gate = new TenantRequestGate({ inFlight: 1, queued: 5 });
    const held = await gate.enter('noisy');
    const queued = gate.enter('noisy');
    const calm = await gate.enter('calm');
    expect(calm).not.toBeNull();
    expect(gate.load('noisy')).toEqual({ running: 1, waiting: 1 });
    calm!();
    held!();
    (await queued)!();
    expect(gate.load('noisy')).toEqual({ running: 0, waiting: 0 });
  });

  it('counts a release once, however often it is called', async () => {
    const gate = new TenantRequestGate({ inFlight: 1, queued: 1 });
    const release = await gate.enter('a');
    const next = gate.enter('a');
    release!();
    release!();
    const second = await next;
    expect(gate.load('a')).toEqual({ running: 1, waiting: 0 });
    second!();
    expect(gate.load('a')).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses at once when nothing may wait', async () => {
    const gate = new TenantRequestGate({ inFlight: 1, queued: 0 });
    const release = await gate.enter('a');
    expect(await gate.enter('a')).toBeNull();
    release!();
    expect(await gate.enter('a')).not.toBeNull();
  });

  it('lets an operation whose caller is gone leave the queue: its place is free at once and it never gets a turn', async () => {
    const gate = new TenantRequestGate({ inFlight: 1, queued: 1 });
    const running = await gate.enter('a');
    const gone = new AbortController();
    const waiting = gate.enter('a', gone.signal);
    await settled();
    expect(await gate.enter('a')).toBeNull();
    gone.abort();
    expect(await waiting).toBeNull();
    expect(gate.load('a')).toEqual({ running: 1, waiting: 0 });
    // The freed place is taken by the next one, which gets the turn when the running one ends.
    const next = gate.enter('a');
    running!();
    (await next)!();
    expect(gate.load('a')).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses a caller already gone, and ignores an abort after the turn was handed over', async () => {
    const gate = new TenantRequestGate({ inFlight: 1, queued: 1 });
    expect(await gate.enter('a', AbortSignal.abort())).toBeNull();
    expect(gate.load('a')).toEqual({ running: 0, waiting: 0 });
    const first = await gate.enter('a');
    const late = new AbortController();
    const second = gate.enter('a', late.signal);
    first!();
    const turn = await second;
    late.abort();
    expect(turn).not.toBeNull();
    expect(gate.load('a')).toEqual({ running: 1, waiting: 0 });
    turn!();
    expect(gate.load('a')).toEqual({ running: 0, waiting: 0 });
  });
});
