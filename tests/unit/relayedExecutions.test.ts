// Covers: src/events/eventStream.ts, src/events/latestExecutions.ts
import { describe, expect, it } from '@jest/globals';
import { ObjectId } from 'mongodb';
import { newExecution, type AttemptEnd, type ExecutionDoc } from '../../src/domain/execution.js';
import type { ExecutionEventMessage } from '../../src/events/executionEventBus.js';
import { RelayedExecutions, type RelaySubscriber } from '../../src/events/relayedExecutions.js';
import type { RelayedEvent } from '../../src/events/relayedEvent.js';
import { statusEvent, withAttemptEnd, withExecution } from '../../src/transitions/statusEvents.js';

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

const queued = (tenantId = 't1', jobId = new ObjectId()): ExecutionDoc => ({
  ...newExecution({ tenantId, jobId, occurrenceKey: 'k', trigger: 'SCHEDULE', workload: 'IO_BOUND', scheduledFor: T0, maxAttempts: 3 }, T0),
  status: 'QUEUED',
  queuedAt: T0,
});
const succeeded: AttemptEnd = {
  status: 'SUCCEEDED',
  nextAttemptAt: null,
  final: true,
  error: null,
  reason: null,
  resultJson: '{"ok":true}',
  outcome: 'SUCCEEDED',
  httpStatus: 200,
};
const running = (doc: ExecutionDoc) => statusEvent(doc, 'QUEUED', 'RUNNING', START, { number: 1, workerId: 'w-1' });
const ended = (doc: ExecutionDoc) => withAttemptEnd(statusEvent(doc, 'RUNNING', 'SUCCEEDED', END), 1, succeeded);

async function take(stream: AsyncIterableIterator<RelayedEvent>, n: number): Promise<RelayedEvent[]> {
  const taken: RelayedEvent[] = [];
  for (let i = 0; i < n; i++) {
    const step = await stream.next();
    if (step.done) break;
    taken.push(step.value);
  }
  return taken;
}

const shown = (relayed: RelayedEvent[]) => relayed.map((r) => [r.event.status, r.execution.status, r.execution.attempt]);

describe('RelayedExecutions: each event worked out once per process for all of its tenant subscribers', () => {
  it('costs one read of an event for two subscribers of its tenant, each given its own copy of the message', async () => {
    const bus = new FakeBus();
    const store = new FakeStore();
    const relay = new RelayedExecutions();
    const doc = queued();
    store.docs.set(doc._id.toHexString(), doc);
    const one = await relay.stream(bus.tenant('t1'), store.subscriber());
    const two = await relay.stream(bus.tenant('t1'), store.subscriber());
    // One listener on the bus for the tenant, whatever its number of subscribers.
    expect(bus.listening('t1')).toBe(1);
    const event = statusEvent(doc, 'SCHEDULED', 'QUEUED', T0);
    bus.emit(event);
    const [a] = await take(one, 1);
    const [b] = await take(two, 1);
    expect(store.reads).toEqual([doc._id.toHexString()]);
    expect(a.execution).toEqual(doc);
    expect(b).toBe(a);
    expect(a.event).toEqual(event);
    await one.return!();
    await two.return!();
  });

  it('costs one read for the same event received twice as distinct, equal messages', async () => {
    const bus = new FakeBus();
    const store = new FakeStore();
    const relay = new RelayedExecutions();
    const doc = queued();
    store.docs.set(doc._id.toHexString(), doc);
    const stream = await relay.stream(bus.tenant('t1'), store.subscriber());
    const event = statusEvent(doc, 'SCHEDULED', 'QUEUED', T0);
    bus.emit(event, { ...event });
    const both = await take(stream, 2);
    expect(both.map((r) => r.key)).toEqual([both[0].key, both[0].key]);
    expect(store.reads).toHaveLength(1);
    await stream.return!();
  });

  it("reads nothing when the event carries the execution, nor for a worker's RUNNING and end that follow it", async () => {
    const bus = new FakeBus();
    const store = new FakeStore();
    const relay = new RelayedExecutions();
    const doc = queued();
    const stream = await relay.stream(bus.tenant('t1'), store.subscriber());
    bus.emit(...withExecution(doc, [statusEvent(doc, 'SCHEDULED', 'QUEUED', T0)]), running(doc), ended(doc));
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
    await stream.return!();
  });

  it('reads an event whose previous state was not relayed here, and shows it as of the event', async () => {
    const bus = new FakeBus();
    const store = new FakeStore();
    const relay = new RelayedExecutions();
    const doc = queued();
    store.docs.set(doc._id.toHexString(), doc);
    const stream = await relay.stream(bus.tenant('t1'), store.subscriber());
    bus.emit(running(doc));
    const [relayed] = await take(stream, 1);
    // Stored still QUEUED (the deferred claim): shown running the attempt the event announces.
    expect(relayed.execution).toMatchObject({ status: 'RUNNING', attempt: 1, startedAt: START });
    expect(store.reads).toHaveLength(1);
    await stream.return!();
  });

  it('works out only what a subscriber wants, and gives each subscriber what passes its own filter', async () => {
    const bus = new FakeBus();
    const store = new FakeStore();
    const relay = new RelayedExecutions();
    const [watched, other] = [queued(), queued()];
    for (const d of [watched, other]) store.docs.set(d._id.toHexString(), d);
    const byJob = await relay.stream(
      bus.tenant('t1'),
      store.subscriber((e) => e.jobId === watched.jobId.toHexString()),
    );
    const bySucceeded = await relay.stream(
      bus.tenant('t1'),
      store.subscriber((e) => e.status === 'SUCCEEDED'),
    );
    // The other job's QUEUED and RUNNING: wanted by nobody, so neither read nor derived.
    bus.emit(statusEvent(other, 'SCHEDULED', 'QUEUED', T0), running(other));
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
    await byJob.return!();
    await bySucceeded.return!();
  });

  it('delivers in arrival order while a read is pending, and derives the next event from the read one', async () => {
    const bus = new FakeBus();
    const store = new FakeStore();
    const relay = new RelayedExecutions();
    const [slow, carried] = [queued(), queued()];
    store.docs.set(slow._id.toHexString(), slow);
    let open = () => undefined as void;
    store.gate = new Promise<void>((resolve) => (open = resolve));
    const stream = await relay.stream(bus.tenant('t1'), store.subscriber());
    bus.emit(
      statusEvent(slow, 'SCHEDULED', 'QUEUED', T0),
      ...withExecution(carried, [statusEvent(carried, null, 'QUEUED', T0)]),
      running(slow),
    );
    const pending = take(stream, 3);
    open();
    const relayed = await pending;
    expect(relayed.map((r) => [r.execution._id, r.event.status])).toEqual([
      [slow._id, 'QUEUED'],
      [carried._id, 'QUEUED'],
      [slow._id, 'RUNNING'],
    ]);
    // The RUNNING event waited for the QUEUED one's read and started from it.
    expect(store.reads).toHaveLength(1);
    await stream.return!();
  });

  it('leaves out an event whose execution is gone, and fails next() when the read fails', async () => {
    const bus = new FakeBus();
    const store = new FakeStore();
    const relay = new RelayedExecutions();
    const [gone, kept] = [queued(), queued()];
    const stream = await relay.stream(bus.tenant('t1'), store.subscriber());
    bus.emit(statusEvent(gone, 'SCHEDULED', 'QUEUED', T0), ...withExecution(kept, [statusEvent(kept, null, 'QUEUED', T0)]));
    expect((await take(stream, 1))[0].execution._id).toEqual(kept._id);
    store.failing = true;
    // A subscriber that closed before the read failed leaves no unhandled rejection behind.
    const closing = await relay.stream(bus.tenant('t1'), store.subscriber());
    bus.emit(statusEvent(gone, 'QUEUED', 'CANCELLED', END));
    await closing.return!();
    await expect(stream.next()).rejects.toThrow('MongoDB unreachable');
    await stream.return!();
  });

  it("listens to a tenant's events while it has subscribers here, apart from other tenants", async () => {
    const bus = new FakeBus();
    const store = new FakeStore();
    const relay = new RelayedExecutions();
    const a = await relay.stream(bus.tenant('t1'), store.subscriber());
    const b = await relay.stream(bus.tenant('t2'), store.subscriber());
    const [ofA, ofB] = [queued('t1'), queued('t2')];
    bus.emit(...withExecution(ofB, [statusEvent(ofB, null, 'QUEUED', T0)]), ...withExecution(ofA, [statusEvent(ofA, null, 'QUEUED', T0)]));
    expect((await take(a, 1))[0].execution.tenantId).toBe('t1');
    expect((await take(b, 1))[0].execution.tenantId).toBe('t2');
    await a.return!();
    expect([bus.listening('t1'), bus.listening('t2')]).toEqual([0, 1]);
    await b.return!();
    expect(bus.listening('t2')).toBe(0);
    // A new subscriber listens again.
    const again = await relay.stream(bus.tenant('t1'), store.subscriber());
    expect(bus.listening('t1')).toBe(1);
    await again.return!();
  });
});
