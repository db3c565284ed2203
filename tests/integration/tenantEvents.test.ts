// Covers: src/events/eventStream.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { ObjectId } from 'mongodb';
import { ExecutionEventBus, type ExecutionEventMessage } from '../../src/events/executionEventBus.js';
import { TenantEvents } from '../../src/events/tenantEvents.js';
import { REDIS_URL } from '../support/env.js';
import { uniqueName } from '../support/harness.js';
import { waitUntil } from '../support/waitFor.js';

function eventOf(tenantId: string): ExecutionEventMessage {
  return {
    tenantId,
    executionId: new ObjectId().toHexString(),
    jobId: new ObjectId().toHexString(),
    previousStatus: null,
    status: 'QUEUED',
    occurredAt: new Date().toISOString(),
  };
}

describe("TenantEvents: a tenant's stream carries that tenant's events only", () => {
  let redis: Redis;
  let bus: ExecutionEventBus;

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    bus = new ExecutionEventBus(redis, uniqueName('tenantEvents'));
  });
  afterAll(async () => {
    await bus?.close();
    await redis?.quit();
  });

  it("drops another tenant's events even when the subscriber's own filter accepts everything", async () => {
    const stream = await new TenantEvents(bus, 'tenant-b').stream(() => true);
    const [a1, b1, a2, b2] = [eventOf('tenant-a'), eventOf('tenant-b'), eventOf('tenant-a'), eventOf('tenant-b')];
    await bus.publish([a1, b1, a2, b2]);
    // One publisher's messages arrive in order: after b2, nothing of A's can still be on its way.
    const received = [(await stream.next()).value, (await stream.next()).value];
    await stream.return!();
    expect(received).toEqual([b1, b2]);
  });

  it('publishes many events in a few messages, and they arrive one by one in their order', async () => {
    const prefix = uniqueName('tenantEvents');
    const batchBus = new ExecutionEventBus(redis, prefix);
    // A plain subscriber on the bus's channel counts the PUBLISHes themselves.
    const watcher = new Redis(REDIS_URL);
    let messages = 0;
    watcher.on('message', () => messages++);
    await watcher.subscribe(`${prefix}:execution-events`);
    try {
      const stream = await new TenantEvents(batchBus, 'tenant-c').stream(() => true);
      const events = Array.from({ length: 250 }, () => eventOf('tenant-c'));
      await batchBus.publish(events);
      const received: ExecutionEventMessage[] = [];
      for (let i = 0; i < events.length; i++) received.push((await stream.next()).value as ExecutionEventMessage);
      await stream.return!();
      expect(received).toEqual(events);
      // 100 events a message: 3 PUBLISHes, not 250 (the watcher's own connection may see the last a moment later).
      await waitUntil('the watcher to see 3 messages', async () => (messages >= 3 ? true : undefined), 5000, 20);
      expect(messages).toBe(3);
    } finally {
      await batchBus.close();
      await watcher.quit();
    }
  });
});
