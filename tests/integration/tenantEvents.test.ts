import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { ObjectId } from 'mongodb';
import { ExecutionEventBus, type ExecutionEventMessage } from '../../src/events/executionEventBus.js';
import { TenantEvents } from '../../src/events/tenantEvents.js';
import { REDIS_URL } from '../support/env.js';
import { uniqueName } from '../support/harness.js';

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
});
