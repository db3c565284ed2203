// Covers: src/resolvers/subscription.resolver.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { ExecutionEventBus } from '../../src/events/executionEventBus.js';
import { statusEvent, withExecution } from '../../src/transitions/statusEvents.js';
import { REDIS_URL } from '../support/env.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { EventCollector, wsClient } from '../support/subscriptions.js';
import { skippedExecution } from '../support/fixtures.js';

interface Relayed {
  executionUpdated: { status: string };
}
const QUERY = 'subscription { executionUpdated { status } }';

/**
 * Sending events is the api's main-thread work: past its SUBSCRIPTION_EVENTS_PER_SECOND on a process,
 * a tenant's subscription that finds the budget spent ends with RATE_LIMITED, the socket stays open,
 * and another tenant's subscriptions are not touched (a subscription flood held the event loop).
 */
describe("a tenant's budget of subscription events", () => {
  let k: TestKairos;
  let redis: Redis;
  let bus: ExecutionEventBus;
  const loud = uniqueName('evloud');
  const calm = uniqueName('evcalm');

  beforeAll(async () => {
    k = await startTestKairos('evbudget', { roles: ['api'], env: { SUBSCRIPTION_EVENTS_PER_SECOND: '5' } });
    redis = new Redis(REDIS_URL);
    bus = new ExecutionEventBus(redis, k.prefix);
  });
  afterAll(async () => {
    await bus?.close();
    await redis?.quit();
    await k?.stop();
  });

  const event = (tenantId: string) => {
    const now = new Date();
    const doc = skippedExecution(tenantId, now);
    return withExecution(doc, [statusEvent(doc, null, 'SKIPPED', now)]);
  };

  it('ends the subscription that finds it spent with RATE_LIMITED and leaves the socket and the other tenant alone', async () => {
    const loudClient = wsClient(k.url, tokenFor(loud, 'viewer'));
    const calmClient = wsClient(k.url, tokenFor(calm, 'viewer'));
    const [a, b] = [new EventCollector<Relayed>(loudClient, QUERY), new EventCollector<Relayed>(loudClient, QUERY)];
    const other = new EventCollector<Relayed>(calmClient, QUERY);
    try {
      // Until all three subscriptions are live.
      for (const deadline = Date.now() + 10_000; [a, b, other].some((c) => c.items.length === 0) && Date.now() < deadline;) {
        await bus.publish([...event(loud), ...event(calm)]);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // Well past five a second for the loud tenant (two subscriptions each sent every event).
      await bus.publish(Array.from({ length: 6 }, () => event(loud)).flat());
      const ended = await Promise.all(
        [a, b].map((c) =>
          c
            .waitFor(() => false, 3000)
            .then(
              () => null,
              (error: Error) => error.message,
            ),
        ),
      );
      const refused = ended.filter((m) => m !== null && !m.startsWith('timed out'));
      expect(refused.length).toBeGreaterThanOrEqual(1);
      for (const message of refused) {
        expect(message).toContain('"code":"RATE_LIMITED"');
        expect(message).toContain('more than 5 events a second on this server');
      }
      // The calm tenant still gets its events, and the loud tenant's socket still admits a subscription.
      const seen = other.items.length;
      const again = new EventCollector<Relayed>(loudClient, QUERY);
      for (const deadline = Date.now() + 10_000; (other.items.length === seen || again.items.length === 0) && Date.now() < deadline;) {
        await bus.publish([...event(calm), ...event(loud)]);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      expect(other.items.length).toBeGreaterThan(seen);
      expect(again.items.length).toBeGreaterThan(0);
      again.stop();
    } finally {
      for (const c of [a, b, other]) c.stop();
      await loudClient.dispose();
      await calmClient.dispose();
    }
  });
});
