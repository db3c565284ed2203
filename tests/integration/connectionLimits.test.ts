// Covers: src/resolvers/viewer.resolver.ts, src/store/ownTenantStore.ts
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { MongoClient } from 'mongodb';
import { signDevToken } from '../../src/auth/verifyToken.js';
import { MONGO_URL, TEST_JWT_SECRET } from '../support/env.js';
import { gqlOk } from '../support/graphqlClient.js';
import { startTestKairos, uniqueName, type TestKairos } from '../support/harness.js';
import { RawSocket } from '../support/rawSocket.js';
import { setTimeout as sleep } from 'node:timers/promises';

const QUOTA = `{ viewer { quota { maxSocketsPerCredential maxSockets maxSubscriptionsPerSocket maxSubscriptions } } }`;
const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const TRIGGER = `mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }`;
const SUBSCRIBE = `subscription { executionUpdated { status execution { id } } }`;

/** A token of `tenant` for one credential (its subject). */
const tokenOf = (tenant: string, subject: string) => signDevToken(TEST_JWT_SECRET, { tenantId: tenant, role: 'member', subject });

describe('limits on live connections: sockets per credential and tenant, operations per socket and tenant', () => {
  let k: TestKairos;
  const opened: RawSocket[] = [];

  /** Connects with the token; the socket is closed after the test either way. */
  async function connect(token: string) {
    const result = await RawSocket.connect(k.url, token);
    opened.push(result.socket);
    return result;
  }

  beforeAll(async () => {
    // Small caps so the tests open a handful of sockets, not hundreds.
    k = await startTestKairos('connlimits', {
      env: {
        DEFAULT_MAX_SOCKETS_PER_CREDENTIAL: '2',
        DEFAULT_MAX_SOCKETS: '3',
        DEFAULT_MAX_SUBSCRIPTIONS_PER_SOCKET: '2',
        DEFAULT_MAX_SUBSCRIPTIONS: '3',
      },
    });
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    await k?.stop();
  });

  it('shows the caps in viewer.quota: the defaults, or what the tenant document says', async () => {
    const tenant = uniqueName('conn_quota');
    expect((await gqlOk(k.url, tokenOf(tenant, 'u'), QUOTA)).viewer.quota).toEqual({
      maxSocketsPerCredential: 2,
      maxSockets: 3,
      maxSubscriptionsPerSocket: 2,
      maxSubscriptions: 3,
    });
    const custom = uniqueName('conn_custom');
    const mongo = await new MongoClient(MONGO_URL).connect();
    try {
      // A tenant whose document predates these caps reads the defaults for the ones it lacks.
      await mongo
        .db(k.dbName)
        .collection<{ _id: string }>('tenants')
        .insertOne({
          _id: custom,
          maxJobs: 5,
          maxConcurrentExecutions: 1,
          maxExecutionsPerMinute: 10,
          webhookSecret: 'x'.repeat(43),
          createdAt: new Date(),
          maxSockets: 7,
        } as never);
    } finally {
      await mongo.close();
    }
    expect((await gqlOk(k.url, tokenOf(custom, 'u'), QUOTA)).viewer.quota).toEqual({
      maxSocketsPerCredential: 2,
      maxSockets: 7,
      maxSubscriptionsPerSocket: 2,
      maxSubscriptions: 3,
    });
  });

  it('closes a socket past the credential cap, then past the tenant cap, with 4429 and a reason; another tenant is unaffected', async () => {
    const tenant = uniqueName('conn_sockets');
    const alice = tokenOf(tenant, 'alice');
    const bob = tokenOf(tenant, 'bob');
    const first = await connect(alice);
    expect((await connect(alice)).acked).toBe(true);
    expect(first.acked).toBe(true);

    const third = await connect(alice);
    expect(third).toMatchObject({
      acked: false,
      code: 4429,
      reason: 'This credential may hold at most 2 open sockets on this server; close one first',
    });
    expect(Buffer.byteLength(third.reason!)).toBeLessThanOrEqual(123);

    // Bob's own cap is not reached, but the tenant's (3) is with his first socket.
    expect((await connect(bob)).acked).toBe(true);
    expect(await connect(bob)).toMatchObject({
      acked: false,
      code: 4429,
      reason: 'This tenant may hold at most 3 open sockets on this server; close one first',
    });

    // Another tenant with the same subject is counted apart.
    expect((await connect(tokenOf(uniqueName('conn_other'), 'alice'))).acked).toBe(true);

    // Closing one of Alice's sockets frees its slot (for her and for the tenant) once the server has seen it close.
    await first.socket.close();
    let again = await connect(alice);
    for (let tries = 0; !again.acked && tries < 50; tries++) {
      await sleep(100);
      again = await connect(alice);
    }
    expect(again.acked).toBe(true);
    expect((await connect(bob)).code).toBe(4429);
  });

  it('refuses an operation past the per-socket and the tenant cap with QUOTA_EXCEEDED; the socket stays open and the others keep their events', async () => {
    const tenant = uniqueName('conn_subs');
    const token = tokenOf(tenant, 'carol');
    const one = (await connect(token)).socket;
    // A burst of three on one socket: the first two run, the third is refused.
    one.subscribe('a', SUBSCRIBE);
    one.subscribe('b', SUBSCRIBE);
    one.subscribe('c', SUBSCRIBE);
    await one.waitFor(() => one.of('c').some((m) => m.type === 'error'), 5000);
    expect(one.of('c')[0].payload).toEqual([
      {
        message: 'A socket may run at most 2 operations at once; complete one first',
        extensions: { code: 'QUOTA_EXCEEDED', maxSubscriptionsPerSocket: 2 },
      },
    ]);

    // A second socket of the tenant: one more fits under the tenant's 3, the next does not.
    const two = (await connect(tokenOf(tenant, 'dave'))).socket;
    two.subscribe('d', SUBSCRIBE);
    two.subscribe('e', SUBSCRIBE);
    await two.waitFor(() => two.of('e').some((m) => m.type === 'error'), 5000);
    expect(two.of('e')[0].payload).toEqual([
      {
        message: 'This tenant may run at most 3 operations at once over its sockets on this server; complete one first',
        extensions: { code: 'QUOTA_EXCEEDED', maxSubscriptions: 3 },
      },
    ]);
    expect(one.open && two.open).toBe(true);

    // Every admitted subscription still gets the tenant's events.
    const job = (
      await gqlOk(k.url, token, CREATE, {
        input: { name: 'probe', schedule: { intervalSeconds: 3600 }, target: { handler: 'noop' }, paused: true },
      })
    ).createJob.job.id;
    const admitted: [RawSocket, string][] = [
      [one, 'a'],
      [one, 'b'],
      [two, 'd'],
    ];
    await eventsReach(admitted, async () => (await gqlOk(k.url, token, TRIGGER, { id: job })).triggerJob.execution.id);
    expect(one.of('c').filter((m) => m.type === 'next')).toEqual([]);

    // Completing one frees its slot: the same socket may subscribe again (the server reads its messages in order).
    one.complete('a');
    one.subscribe('f', SUBSCRIBE);
    await eventsReach([[one, 'f']], async () => (await gqlOk(k.url, token, TRIGGER, { id: job })).triggerJob.execution.id);
    expect(one.of('f').filter((m) => m.type === 'error')).toEqual([]);
  });
});

/**
 * graphql-ws acknowledges a subscribe only by its first event: triggers until each of `subscriptions`
 * has received an event of one of the executions triggered, within 15 s.
 */
async function eventsReach(subscriptions: [RawSocket, string][], trigger: () => Promise<string>): Promise<void> {
  const triggered = new Set<string>();
  const reached = () =>
    subscriptions.every(([socket, id]) =>
      socket.of(id).some((m) => m.type === 'next' && triggered.has(m.payload?.data?.executionUpdated?.execution?.id)),
    );
  const deadline = Date.now() + 15_000;
  while (!reached()) {
    if (Date.now() > deadline)
      throw new Error(`not every subscription saw an event: ${JSON.stringify(subscriptions.map(([s, id]) => s.of(id))).slice(0, 1500)}`);
    triggered.add(await trigger());
    await Promise.all(subscriptions.map(([socket]) => socket.waitFor(reached, 1000).catch(() => undefined)));
  }
}
