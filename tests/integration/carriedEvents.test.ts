// Covers: src/events/latestExecutions.ts, src/resolvers/subscription.resolver.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { ObjectId } from 'mongodb';
import { ExecutionEventBus } from '../../src/events/executionEventBus.js';
import { statusEvent, withAttemptEnd, withExecution } from '../../src/transitions/statusEvents.js';
import { toGlobalId } from '../../src/ids/globalId.js';
import { REDIS_URL } from '../support/env.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gqlOk } from '../support/graphqlClient.js';
import { EventCollector, wsClient } from '../support/subscriptions.js';
import { skippedExecution } from '../support/fixtures.js';

interface Lived {
  executionUpdated: {
    status: string;
    execution: { id: string; status: string; attempt: number; finishedAt: string | null; result: unknown; attempts: unknown[] };
  };
}

interface Relayed {
  executionUpdated: { status: string; execution: { id: string; status: string; trigger: string } };
}

/**
 * The materialiser's and a trigger's events carry the execution they just inserted, so an api process
 * relays them to its subscribers without reading MongoDB (a noisy tenant's SKIPPED and QUEUED
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

  it("relays a worker's RUNNING and end events from the QUEUED one before them, without a read", async () => {
    const client = wsClient(k.url, tokenFor(tenant, 'viewer'));
    const events = new EventCollector<Lived>(
      client,
      'subscription { executionUpdated { status execution { id status attempt finishedAt result attempts { number outcome httpStatus finishedAt } } } }',
    );
    try {
      const now = new Date();
      // In no database: each event is relayed only if it was carried or derived (a read finds nothing).
      const queued = { ...skippedExecution(tenant, now), status: 'QUEUED' as const, reason: null, finishedAt: null, queuedAt: now };
      const id = toGlobalId('Execution', queued._id);
      const end = {
        status: 'SUCCEEDED' as const,
        nextAttemptAt: null,
        final: true,
        error: null,
        reason: null,
        resultJson: '{"n":1}',
        outcome: 'SUCCEEDED' as const,
        httpStatus: null,
      };
      const endAt = new Date(now.getTime() + 50);
      const deadline = Date.now() + 10_000;
      // Until the subscription is live (events published before it are not seen).
      while (!events.items.some((e) => e.executionUpdated.execution.id === id) && Date.now() < deadline) {
        await bus.publish(withExecution(queued, [statusEvent(queued, null, 'QUEUED', now)]));
        await events.waitFor((items) => items.length > 0, 200).catch(() => undefined);
      }
      await bus.publish([
        statusEvent(queued, 'QUEUED', 'RUNNING', now, { number: 1, workerId: 'w-test' }),
        withAttemptEnd(statusEvent(queued, 'RUNNING', 'SUCCEEDED', endAt), 1, end),
      ]);
      const items = await events.waitFor((all) => all.some((e) => e.executionUpdated.status === 'SUCCEEDED'), 5000);
      const ours = items.filter((e) => e.executionUpdated.execution.id === id).map((e) => e.executionUpdated);
      expect(ours.slice(-2)).toEqual([
        {
          status: 'RUNNING',
          execution: {
            id,
            status: 'RUNNING',
            attempt: 1,
            finishedAt: null,
            result: null,
            attempts: [{ number: 1, outcome: null, httpStatus: null, finishedAt: null }],
          },
        },
        {
          status: 'SUCCEEDED',
          execution: {
            id,
            status: 'SUCCEEDED',
            attempt: 1,
            finishedAt: endAt.toISOString(),
            result: { n: 1 },
            attempts: [{ number: 1, outcome: 'SUCCEEDED', httpStatus: null, finishedAt: endAt.toISOString() }],
          },
        },
      ]);
    } finally {
      events.stop();
      await client.dispose();
    }
  });
});

/** What a subscriber is sent for an execution, next to what a query answers once it is over. */
const LIVED_FIELDS =
  'id status attempt startedAt finishedAt queuedAt updatedAt durationMs startLagMs error result attempts { number startedAt finishedAt outcome error httpStatus }';

describe("a worker's events", () => {
  let k: TestKairos;
  const tenant = uniqueName('lived');

  beforeAll(async () => {
    k = await startTestKairos('lived', { roles: ['api', 'scheduler', 'worker'] });
  });
  afterAll(async () => {
    await k?.stop();
  });

  it('show the execution as MongoDB has it once it is over', async () => {
    const token = tokenFor(tenant, 'member');
    const client = wsClient(k.url, token);
    const events = new EventCollector<{ executionUpdated: { status: string; execution: Record<string, unknown> } }>(
      client,
      `subscription { executionUpdated { status execution { ${LIVED_FIELDS} } } }`,
    );
    try {
      const job = (
        await gqlOk(k.url, token, 'mutation($i: CreateJobInput!) { createJob(input: $i) { job { id } } }', {
          i: { name: 'lived', schedule: { intervalSeconds: 3600 }, target: { handler: 'noop' }, paused: true },
        })
      ).createJob.job;
      // Until the subscription is live: trigger, and wait for that execution's end.
      let executionId = '';
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline) {
        executionId = (await gqlOk(k.url, token, 'mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }', { id: job.id }))
          .triggerJob.execution.id;
        const ended = await events
          .waitFor(
            (items) => items.some((e) => e.executionUpdated.execution.id === executionId && e.executionUpdated.status === 'SUCCEEDED'),
            3000,
          )
          .catch(() => null);
        if (ended && events.items.some((e) => e.executionUpdated.execution.id === executionId && e.executionUpdated.status === 'QUEUED'))
          break;
      }
      const sent = events.items.filter((e) => e.executionUpdated.execution.id === executionId).map((e) => e.executionUpdated);
      expect(sent.map((e) => e.status)).toEqual(['SCHEDULED', 'QUEUED', 'RUNNING', 'SUCCEEDED']);
      const stored = (
        await gqlOk(k.url, token, `query($id: ID!) { node(id: $id) { ... on Execution { ${LIVED_FIELDS} } } }`, { id: executionId })
      ).node;
      expect(sent[3].execution).toEqual(stored);
    } finally {
      events.stop();
      await client.dispose();
    }
  });
});
