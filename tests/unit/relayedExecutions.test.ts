// Covers: src/events/eventStream.ts, src/events/latestExecutions.ts
import { describe, expect, it } from '@jest/globals';
import type { ExecutionDoc, ExecutionStatus } from '../../src/domain/execution.js';
import type { ExecutionEventMessage } from '../../src/events/executionEventBus.js';
import { RelayedExecutions, type RelaySubscriber } from '../../src/events/relayedExecutions.js';
import type { RelayedEvent } from '../../src/events/relayedEvent.js';
import { statusEvent, withAttemptEnd, withExecution } from '../../src/transitions/statusEvents.js';
import { executionDoc, SUCCEEDED_END } from '../support/executionFixtures.js';

const T0 = new Date('2032-03-04T05:06:07.000Z');
const START = new Date('2032-03-04T05:06:08.000Z');
const END = new Date('2032-03-04T05:06:09.000Z');

type Listener = (event: ExecutionEventMessage) => void;

/**
 * The bus as each subscriber's TenantEvents sees it, except that every listener is handed its own
 * parse of the message (distinct, equal objects), so nothing can rest on sharing one object.
 */
class FakeBus {
  readonly listeners = new Map<string, Set<Listener>>();

  tenant(tenantId: string) {
    return {
      tenantId,
      subscribe: async (listener: Listener) => {
        let own = this.listeners.get(tenantId);
        if (!own) this.listeners.set(tenantId, (own = new Set()));
        own.add(listener);
        return () => own.delete(listener);
      },
    };
  }

  emit(...events: ExecutionEventMessage[]): void {
    for (const event of events)
      for (const listener of this.listeners.get(event.tenantId) ?? []) listener(JSON.parse(JSON.stringify(event)));
  }

  listening(tenantId: string): number {
    return this.listeners.get(tenantId)?.size ?? 0;
  }
}

/** A tenant's executions as stored, and the reads made of them (by every subscriber's scope). */
class FakeStore {
  readonly docs = new Map<string, ExecutionDoc>();
  readonly reads: string[] = [];
  /** While set, reads wait for it. */
  gate: Promise<void> | null = null;
  failing = false;

  subscriber(accept: (event: ExecutionEventMessage) => boolean = () => true): RelaySubscriber {
    return {
      accept,
      read: async (executionId) => {
        this.reads.push(executionId);
        await this.gate;
        if (this.failing) throw new Error('MongoDB unreachable');
        return this.docs.get(executionId) ?? null;
      },
    };
  }
}

/** A relay over a fake bus, and a store holding `stored`; `subscribe` opens one subscriber's stream of a tenant's events. */
function setup(...stored: ExecutionDoc[]) {
  const bus = new FakeBus();
  const store = new FakeStore();
  for (const doc of stored) store.docs.set(doc._id.toHexString(), doc);
  const relay = new RelayedExecutions();
  const subscribe = (tenantId = 't1', accept?: (event: ExecutionEventMessage) => boolean) =>
    relay.stream(bus.tenant(tenantId), store.subscriber(accept));
  return { bus, store, subscribe };
}

const queued = (tenantId = 't1'): ExecutionDoc => executionDoc(T0, { tenantId, status: 'QUEUED', queuedAt: T0 });
/** The scheduler's QUEUED, without the execution. */
const queuedEvent = (doc: ExecutionDoc) => statusEvent(doc, 'SCHEDULED', 'QUEUED', T0);
/** A QUEUED event carrying the execution, as an insert publishes it. */
const carried = (doc: ExecutionDoc, from: ExecutionStatus | null = null) => withExecution(doc, [statusEvent(doc, from, 'QUEUED', T0)]);
const running = (doc: ExecutionDoc) => statusEvent(doc, 'QUEUED', 'RUNNING', START, { number: 1, workerId: 'w-1' });
const ended = (doc: ExecutionDoc) => withAttemptEnd(statusEvent(doc, 'RUNNING', 'SUCCEEDED', END), 1, SUCCEEDED_END);

async function take(stream: AsyncIterableIterator<RelayedEvent>, n: number): Promise<RelayedEvent[]> {
  const taken: RelayedEvent[] = [];
  for (let i = 0; i < n; i++) {
    const step = await stream.next();
    if (step.done) break;
    taken.push(step.value);
  }
  return taken;
}

/** Ends subscribers' streams, in order. */
async function close(...streams: AsyncIterableIterator<RelayedEvent>[]): Promise<void> {
  for (const stream of streams) await stream.return!();
}

const shown = (relayed: RelayedEvent[]) => relayed.map((r) => [r.event.status, r.execution.status, r.execution.attempt]);

describe('RelayedExecutions: each event worked out once per process for all of its tenant subscribers', () => {
  it('costs one read of an event for two subscribers of its tenant, each given its own copy of the message', async () => {
    const doc = queued();
    const { bus, store, subscribe } = setup(doc);
    const one = await subscribe();
    const two = await subscribe();
    // One listener on the bus for the tenant, whatever its number of subscribers.
    expect(bus.listening('t1')).toBe(1);
    const event = queuedEvent(doc);
    bus.emit(event);
    const [a] = await take(one, 1);
    const [b] = await take(two, 1);
    expect(store.reads).toEqual([doc._id.toHexString()]);
    expect(a.execution).toEqual(doc);
    expect(b).toBe(a);
    expect(a.event).toEqual(event);
    await close(one, two);
  });

  it('reads an event only when a subscriber pulls it, so one never taken costs nothing', async () => {
    const first = queued();
    const second = queued();
    const { bus, store, subscribe } = setup(first, second);
    const stream = await subscribe();
    bus.emit(queuedEvent(first), queuedEvent(second));
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.reads).toEqual([]);
    await take(stream, 1);
    expect(store.reads).toEqual([first._id.toHexString()]);
    await take(stream, 1);
    expect(store.reads).toEqual([first._id.toHexString(), second._id.toHexString()]);
    await close(stream);
  });

  it('costs one read for the same event received twice as distinct, equal messages', async () => {
    const doc = queued();
    const { bus, store, subscribe } = setup(doc);
    const stream = await subscribe();
    const event = queuedEvent(doc);
    bus.emit(event, { ...event });
    const both = await take(stream, 2);
    expect(both.map((r) => r.key)).toEqual([both[0].key, both[0].key]);
    expect(store.reads).toHaveLength(1);
    await close(stream);
  });

  it("reads nothing when the event carries the execution, nor for a worker's RUNNING and end that follow it", async () => {
    const doc = queued();
    const { bus, store, subscribe } = setup();
    const stream = await subscribe();
    bus.emit(...carried(doc, 'SCHEDULED'), running(doc), ended(doc));
    const relayed = await take(stream, 3);
    expect(shown(relayed)).toEqual([
      ['QUEUED', 'QUEUED', 0],
      ['RUNNING', 'RUNNING', 1],
      ['SUCCEEDED', 'SUCCEEDED', 1],
    ]);
    expect(relayed[2].execution).toMatchObject({ finishedAt: END, resultJson: '{"ok":true}' });
    // What the events carried is in the execution now, not kept twice.
    expect([relayed[0].event, relayed[2].event]).toEqual([
      expect.not.objectContaining({ execution: expect.anything() }),
      expect.not.objectContaining({ end: expect.anything() }),
    ]);
    expect(store.reads).toEqual([]);
    await close(stream);
  });

  it('reads an event whose previous state was not relayed here, and shows it as of the event', async () => {
    const doc = queued();
    const { bus, store, subscribe } = setup(doc);
    const stream = await subscribe();
    bus.emit(running(doc));
    const [relayed] = await take(stream, 1);
    // Stored still QUEUED (the deferred claim): shown running the attempt the event announces.
    expect(relayed.execution).toMatchObject({ status: 'RUNNING', attempt: 1, startedAt: START });
    expect(store.reads).toHaveLength(1);
    await close(stream);
  });

  it('works out only what a subscriber wants, and gives each subscriber what passes its own filter', async () => {
    const [watched, other] = [queued(), queued()];
    const { bus, store, subscribe } = setup(watched, other);
    const byJob = await subscribe('t1', (e) => e.jobId === watched.jobId.toHexString());
    const bySucceeded = await subscribe('t1', (e) => e.status === 'SUCCEEDED');
    // The other job's QUEUED and RUNNING: wanted by nobody, so neither read nor derived.
    bus.emit(queuedEvent(other), running(other));
    // The watched job's end, without its fields: wanted by both, read once.
    bus.emit(statusEvent(watched, 'RUNNING', 'SUCCEEDED', END));
    // The other job's end: the second subscriber's only.
    bus.emit(statusEvent(other, 'RUNNING', 'SUCCEEDED', END));
    const [first] = await take(byJob, 1);
    const [second, third] = await take(bySucceeded, 2);
    expect(first.execution._id).toEqual(watched._id);
    expect(second).toBe(first);
    expect(third.execution._id).toEqual(other._id);
    expect(store.reads).toEqual([watched._id.toHexString(), other._id.toHexString()]);
    await close(byJob, bySucceeded);
  });

  it('delivers in arrival order while a read is pending, and derives the next event from the read one', async () => {
    const [slow, inserted] = [queued(), queued()];
    const { bus, store, subscribe } = setup(slow);
    let open = () => undefined as void;
    store.gate = new Promise<void>((resolve) => (open = resolve));
    const stream = await subscribe();
    bus.emit(queuedEvent(slow), ...carried(inserted), running(slow));
    const pending = take(stream, 3);
    open();
    const relayed = await pending;
    expect(relayed.map((r) => [r.execution._id, r.event.status])).toEqual([
      [slow._id, 'QUEUED'],
      [inserted._id, 'QUEUED'],
      [slow._id, 'RUNNING'],
    ]);
    // The RUNNING event waited for the QUEUED one's read and started from it.
    expect(store.reads).toHaveLength(1);
    await close(stream);
  });

  it('leaves out an event whose execution is gone, and fails next() when the read fails', async () => {
    const [gone, kept] = [queued(), queued()];
    const { bus, store, subscribe } = setup();
    const stream = await subscribe();
    bus.emit(queuedEvent(gone), ...carried(kept));
    expect((await take(stream, 1))[0].execution._id).toEqual(kept._id);
    store.failing = true;
    // A subscriber that closed before the read failed leaves no unhandled rejection behind.
    const closing = await subscribe();
    bus.emit(statusEvent(gone, 'QUEUED', 'CANCELLED', END));
    await close(closing);
    await expect(stream.next()).rejects.toThrow('MongoDB unreachable');
    await close(stream);
  });

  it("listens to a tenant's events while it has subscribers here, apart from other tenants", async () => {
    const { bus, subscribe } = setup();
    const a = await subscribe('t1');
    const b = await subscribe('t2');
    const [ofA, ofB] = [queued('t1'), queued('t2')];
    bus.emit(...carried(ofB), ...carried(ofA));
    expect((await take(a, 1))[0].execution.tenantId).toBe('t1');
    expect((await take(b, 1))[0].execution.tenantId).toBe('t2');
    await close(a);
    expect([bus.listening('t1'), bus.listening('t2')]).toEqual([0, 1]);
    await close(b);
    expect(bus.listening('t2')).toBe(0);
    // A new subscriber listens again.
    const again = await subscribe('t1');
    expect(bus.listening('t1')).toBe(1);
    await close(again);
  });
});
