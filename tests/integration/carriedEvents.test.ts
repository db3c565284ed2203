import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { ObjectId } from 'mongodb';
import { ExecutionEventBus } from '../../src/events/executionEventBus.js';
import { statusEvent, withExecution } from '../../src/events/statusEvent.js';
import { toGlobalId } from '../../src/ids/globalId.js';
import { REDIS_URL } from '../support/env.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { EventCollector, wsClient } from '../support/subscriptions.js';
import { skippedExecution } from '../support/fixtures.js';

interface Relayed {
  executionUpdated: { status: string; execution: { id: string; status: string; trigger: string } };
}

/**
 * The materialiser's and a trigger's events carry the execution they just inserted, so an api process
 * relays them to its subscribers without reading MongoDB (issue 11: a noisy tenant's SKIPPED and QUEUED
 * events cost a read each). Shown with executions that are in no database: relayed when carried,
 * dropped (the read finds nothing) when not.
 */
describe('events that carry their execution', () => {
  let k: TestKairos;
  let redis: Redis;
  let bus: ExecutionEventBus;
  const tenant = uniqueName('carried');

  beforeAll(async () => {
    k = await startTestKairos('carried', { roles: ['api'] });
    redis = new Redis(REDIS_URL);
    bus = new ExecutionEventBus(redis, k.prefix);
  });
  afterAll(async () => {
    await bus?.close();
    await redis?.quit();
    await k?.stop();
  });

  it('are relayed from the event without a read; an event without it is read, and dropped when not found', async () => {
    const client = wsClient(k.url, tokenFor(tenant, 'viewer'));
    const events = new EventCollector<Relayed>(client, 'subscription { executionUpdated { status execution { id status trigger } } }');
    const carriedIds = new Set<string>();
    const missingIds = new Set<string>();
    try {
      const now = new Date();
      const doc = (id: ObjectId) => skippedExecution(tenant, now, id);
      // Until the subscription is live: each round an uncarried event first, then a carried one.
      const deadline = Date.now() + 10_000;
      while (events.items.length === 0 && Date.now() < deadline) {
        const missing = doc(new ObjectId());
        const carried = doc(new ObjectId());
        missingIds.add(toGlobalId('Execution', missing._id));
        carriedIds.add(toGlobalId('Execution', carried._id));
        await bus.publish([
          statusEvent(missing, null, 'SKIPPED', now),
          ...withExecution(carried, [statusEvent(carried, null, 'SKIPPED', now)]),
        ]);
        await events.waitFor((items) => items.length > 0, 200).catch(() => undefined);
      }
      const [first] = await events.waitFor((items) => items.length > 0, 1000);
      expect(first.executionUpdated).toMatchObject({ status: 'SKIPPED', execution: { status: 'SKIPPED', trigger: 'SCHEDULE' } });
      expect(carriedIds.has(first.executionUpdated.execution.id)).toBe(true);
      for (const item of events.items) expect(missingIds.has(item.executionUpdated.execution.id)).toBe(false);
    } finally {
      events.stop();
      await client.dispose();
    }
  });
});
