import { afterAll, describe, expect, it } from '@jest/globals';
import { createRedisClient, type RedisClient } from '../../src/redis/redisClient.js';
import { ExecutionEventBus, type ExecutionEventMessage } from '../../src/events/executionEventBus.js';
import { REDIS_URL } from '../support/env.js';
import { uniqueName } from '../support/harness.js';
import { waitUntil } from '../support/waitFor.js';

const target = { url: REDIS_URL, cluster: null };

function event(i: number): ExecutionEventMessage {
  return {
    tenantId: 't',
    executionId: `e${i}`,
    jobId: 'j',
    previousStatus: 'QUEUED',
    status: 'RUNNING',
    occurredAt: new Date(0).toISOString(),
  };
}

describe('the shared Redis connection (real Redis)', () => {
  const clients: RedisClient[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.quit()));
  });

  async function client(autoPipelining: boolean): Promise<RedisClient> {
    const c = createRedisClient(target, { maxRetriesPerRequest: 3, autoPipelining });
    clients.push(c);
    await c.connect();
    return c;
  }

  it('sends the events many executions publish at the same moment as one pipeline, in the order they were published', async () => {
    const redis = await client(true);
    const bus = new ExecutionEventBus(redis, uniqueName('autoPipelining'));
    const received: string[] = [];
    await bus.subscribe('t', (e) => received.push(e.executionId));
    try {
      // 50 executions publishing in one turn of the event loop, as the ends of one group commit do.
      const publishing = Array.from({ length: 50 }, (_, i) => bus.publish([event(i)]));
      // Queued for one pipeline instead of written to the socket one by one.
      expect((redis as unknown as { autoPipelineQueueSize: number }).autoPipelineQueueSize).toBe(50);
      await Promise.all(publishing);
      await waitUntil('all events received', async () => (received.length === 50 ? received : undefined), 5000, 20);
      expect(received).toEqual(Array.from({ length: 50 }, (_, i) => `e${i}`));
    } finally {
      await bus.close();
    }
  });

  it('sends each command on its own when auto-pipelining is off (the BullMQ connections)', async () => {
    const redis = await client(false);
    const pending = [redis.ping(), redis.ping()];
    expect((redis as unknown as { autoPipelineQueueSize: number }).autoPipelineQueueSize).toBe(0);
    await Promise.all(pending);
  });
});
