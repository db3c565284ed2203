// Covers: src/api/webSocketServer.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { ObjectId } from 'mongodb';
import { toGlobalId } from '../../src/ids/globalId.js';
import { REDIS_URL } from '../support/env.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { holdPageReads } from '../support/holdPageReads.js';
import { RawSocket } from '../support/rawSocket.js';
import { waitUntil } from '../support/waitFor.js';

const JOBS = '{ jobs(first: 50) { edges { node { id } } } }';
const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;

/** An operation's outcome on either transport: its data, or its errors (`status` over HTTP). */
interface Answer {
  status?: number;
  retryAfter?: string | null;
  data?: any;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

// One job's page: a page over all of a tenant's jobs also takes the tenant's scan turns (one at a time), and these tests count the request turns.
const EXECUTIONS = `{ executions(first: 100, filter: { jobId: "${toGlobalId('Job', new ObjectId())}" }) { edges { node { id } } } }`;
const TOO_MANY_AT_ONCE = [
  { message: 'Too many requests of this tenant at once; retry after 1 s', extensions: { code: 'RATE_LIMITED', retryAfterSeconds: 1 } },
];

/** Sends one operation on a graphql-ws socket and resolves with its data, or the errors of its `error` message. */
async function overSocket(socket: RawSocket, id: string, query: string): Promise<Answer> {
  socket.subscribe(id, query);
  await socket.waitFor(() => socket.of(id).some((m) => m.type === 'error' || m.type === 'complete'), 20_000);
  const refused = socket.of(id).find((m) => m.type === 'error');
  if (refused) return { errors: refused.payload };
  return socket.of(id).find((m) => m.type === 'next')?.payload ?? {};
}

/**
 * One tenant's burst of requests takes turns in the api process (tenant A's hundred requests at once
 * queued tenant B's behind them on the database pool): past the turns and the queue, RATE_LIMITED
 * with Retry-After; another tenant's request is served meanwhile. Operations sent over graphql-ws
 * take their turns in the same gate as HTTP requests: 200 queries in flight on a few sockets
 * otherwise made another tenant's trivial request wait minutes.
 */
describe("a tenant's requests at once", () => {
  let k: TestKairos;
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    k = await startTestKairos('tenantreqs', {
      roles: ['api'],
      env: { API_TENANT_REQUESTS_IN_FLIGHT: '1', API_TENANT_REQUESTS_QUEUED: '1' },
    });
  });
  afterAll(async () => {
    await k?.stop();
    await redis?.quit();
  });

  async function post(token: string, query: string, variables?: Record<string, unknown>) {
    const response = await fetch(k.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] };
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body };
  }

  it('runs one and queues one of a burst, refuses the rest with RATE_LIMITED, and serves another tenant meanwhile', async () => {
    const tenant = uniqueName('noisy');
    const noisy = tokenFor(tenant, 'member');
    const calm = tokenFor(uniqueName('calm'), 'viewer');
    // Held by the test, the tenant's create lock keeps each create that has a turn waiting (up to its 5 s wait).
    const lock = `${k.prefix}:lock:create-job:${tenant}`;
    await redis.set(lock, 'held by the test', 'PX', 20_000);
    let answered = 0;
    const burst = Array.from({ length: 5 }, (_, i) =>
      post(noisy, CREATE, { input: { name: `j${i}`, schedule: { intervalSeconds: 3600 }, target: { handler: 'noop' } } }).then((a) => {
        answered += a.status === 200 ? 1 : 0;
        return a;
      }),
    );
    const calmAnswer = await post(calm, JOBS);
    expect(calmAnswer.status).toBe(200);
    expect(answered).toBe(0);
    await redis.del(lock);

    const answers = await Promise.all(burst);
    expect(answers.filter((a) => a.status === 200 && !a.body.errors)).toHaveLength(2);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(3);
    for (const answer of refused) {
      expect(answer.retryAfter).toBe('1');
      expect(answer.body.errors).toEqual([
        {
          message: 'Too many requests of this tenant at once; retry after 1 s',
          extensions: { code: 'RATE_LIMITED', retryAfterSeconds: 1 },
        },
      ]);
    }
    // The turns were all given back: the tenant's next request runs.
    expect((await post(noisy, JOBS)).status).toBe(200);
  });
  async function answerOf(token: string, query: string): Promise<Answer> {
    const { status, retryAfter, body } = await post(token, query);
    return { status, retryAfter, ...body };
  }

  it.each(['HTTP', 'WebSocket'])(
    "over %s, runs one of a flood of queries at once and queues one, refuses the rest, and answers another tenant's query meanwhile",
    async (transport) => {
      const tenant = uniqueName('flood');
      const noisy = tokenFor(tenant, 'viewer');
      const calm = tokenFor(uniqueName('calm'), 'viewer');
      const hold = holdPageReads(tenant);
      const sockets: RawSocket[] = [];
      try {
        let send = (token: string, _n: number) => answerOf(token, EXECUTIONS);
        if (transport === 'WebSocket') {
          // Two sockets of tenant A (the flood split over them, within the subscription caps) and one of B.
          for (const token of [noisy, noisy, calm]) {
            const { socket, acked } = await RawSocket.connect(k.url, token);
            sockets.push(socket);
            expect(acked).toBe(true);
          }
          send = (token, n) => overSocket(token === calm ? sockets[2] : sockets[n % 2], `q${n}`, EXECUTIONS);
        }
        const answered: Answer[] = [];
        const flood = Array.from({ length: 8 }, (_, n) => send(noisy, n).then((a) => (answered.push(a), a)));
        await waitUntil(
          'six refused and one running',
          async () => (answered.length === 6 && hold.seen.running === 1) || undefined,
          10_000,
          20,
        );

        const calmAnswer = await send(calm, 100);
        expect(calmAnswer.errors).toBeUndefined();
        expect(calmAnswer.data.executions.edges).toEqual([]);
        expect(answered.every((a) => a.errors)).toBe(true);
        hold.release();

        const answers = await Promise.all(flood);
        expect(answers.filter((a) => a.data && !a.errors)).toHaveLength(2);
        const refused = answers.filter((a) => a.errors);
        expect(refused).toHaveLength(6);
        for (const answer of refused) {
          expect(answer.errors).toEqual(TOO_MANY_AT_ONCE);
          if (transport === 'HTTP') expect([answer.status, answer.retryAfter]).toEqual([429, '1']);
        }
        expect(hold.seen).toEqual({ running: 0, most: 1, started: 2 });
        // Every turn was given back: the tenant's next operation runs.
        expect((await send(noisy, 200)).errors).toBeUndefined();
        // Each socket still open: only the operations were refused.
        expect(sockets.every((s) => s.open)).toBe(true);
      } finally {
        hold.restore();
        await Promise.all(sockets.map((s) => s.close()));
      }
    },
  );

  it('gives one turn to both transports: a socket operation waits behind an HTTP request of the same tenant', async () => {
    const tenant = uniqueName('mixed');
    const noisy = tokenFor(tenant, 'viewer');
    const hold = holdPageReads(tenant);
    const { socket } = await RawSocket.connect(k.url, noisy);
    try {
      const overHttp = answerOf(noisy, EXECUTIONS);
      await waitUntil('the HTTP request running', async () => hold.seen.running === 1 || undefined, 10_000, 20);
      const answered: Answer[] = [];
      const overWs = ['a', 'b'].map((id) => overSocket(socket, id, EXECUTIONS).then((a) => (answered.push(a), a)));
      await waitUntil('one socket operation refused', async () => answered.length === 1 || undefined, 10_000, 20);
      expect(answered[0].errors).toEqual(TOO_MANY_AT_ONCE);
      expect(hold.seen.started).toBe(1);
      hold.release();
      expect((await overHttp).status).toBe(200);
      const [a, b] = await Promise.all(overWs);
      expect([a, b].filter((x) => x.data && !x.errors)).toHaveLength(1);
      expect(hold.seen).toEqual({ running: 0, most: 1, started: 2 });
    } finally {
      hold.restore();
      await socket.close();
    }
  });

  it("gives up a closed socket's operations still waiting for their turn: they leave the queue and never run", async () => {
    const tenant = uniqueName('closed');
    const noisy = tokenFor(tenant, 'viewer');
    const hold = holdPageReads(tenant);
    try {
      const first = answerOf(noisy, EXECUTIONS);
      await waitUntil('the HTTP request running', async () => hold.seen.running === 1 || undefined, 10_000, 20);
      const { socket } = await RawSocket.connect(k.url, noisy);
      const answered: Answer[] = [];
      for (const id of ['a', 'b'])
        void overSocket(socket, id, EXECUTIONS).then(
          (a) => answered.push(a),
          () => undefined,
        );
      // One refused means the other holds the queue's only place.
      await waitUntil('one socket operation refused', async () => answered.length === 1 || undefined, 10_000, 20);
      await socket.close();
      // A round trip of another tenant: the server has handled the close by the time it answers.
      expect((await answerOf(tokenFor(uniqueName('other'), 'viewer'), EXECUTIONS)).status).toBe(200);
      // The place the socket's operation held is free again: this request waits instead of being refused.
      const second = answerOf(noisy, EXECUTIONS);
      hold.release();
      expect((await first).status).toBe(200);
      expect((await second).status).toBe(200);
      expect(hold.seen).toEqual({ running: 0, most: 1, started: 2 });
    } finally {
      hold.restore();
    }
  });
});
