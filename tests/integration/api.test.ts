// Covers: src/api/createContext.ts, src/api/socketAuth.ts, src/auth/authenticate.ts, src/jobs/createJob.ts, src/resolvers/auth-checker.ts,
// src/resolvers/job.resolver.ts, src/resolvers/jobConnection.resolver.ts, src/resolvers/viewer.resolver.ts, src/store/keyset.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import jwt from 'jsonwebtoken';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { wsClient } from '../support/subscriptions.js';
import { TEST_JWT_SECRET } from '../support/env.js';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const COUNT = `{ viewer { quota { jobCount } } jobs { totalCount } }`;

describe('api: auth, viewer and bad input', () => {
  let k: TestKairos;
  const tenant = uniqueName('api');
  const member = tokenFor(tenant, 'member');

  beforeAll(async () => {
    // API only: nothing is scheduled or run, so a rejected request provably left nothing behind.
    k = await startTestKairos('api', { roles: ['api'] });
  });
  afterAll(async () => {
    await k?.stop();
  });

  describe('authentication', () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, string | null][] = [
      ['missing', null],
      ['malformed', 'not-a-jwt'],
      ['badly signed', jwt.sign({ tid: 't1', role: 'admin', exp: now + 60 }, 'another-secret-of-some-length')],
      ['expired', jwt.sign({ tid: 't1', role: 'admin', exp: now - 60 }, TEST_JWT_SECRET)],
      ['without exp', jwt.sign({ tid: 't1', role: 'admin' }, TEST_JWT_SECRET)],
      ['without tid', jwt.sign({ role: 'admin', exp: now + 60 }, TEST_JWT_SECRET)],
      ['with an unknown role', jwt.sign({ tid: 't1', role: 'root', exp: now + 60 }, TEST_JWT_SECRET)],
    ];
    it.each(cases)('rejects a %s token with UNAUTHENTICATED', async (_label, token) => {
      const result = await gql(k.url, token, '{ viewer { tenantId } }');
      expect(result.status).toBe(200);
      expect(result.data).toBeNull();
      expect(result.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
      if (token) expect(JSON.stringify(result)).not.toContain(token);
    });

    it('closes a subscription socket with 4401 when the token is bad', async () => {
      const client = wsClient(k.url, 'not-a-jwt');
      const closed = await new Promise<{ code: number }>((resolve) => {
        client.subscribe(
          { query: 'subscription { executionUpdated { status } }' },
          { next: () => undefined, error: (e) => resolve(e as { code: number }), complete: () => resolve({ code: 0 }) },
        );
      });
      await client.dispose();
      expect(closed.code).toBe(4401);
    });
  });

  it('answers viewer from the token, creating the tenant with the default quota', async () => {
    const data = await gqlOk(
      k.url,
      member,
      '{ viewer { tenantId subject role quota { maxJobs jobCount maxConcurrentExecutions maxExecutionsPerMinute } } }',
    );
    expect(data.viewer).toEqual({
      tenantId: tenant,
      subject: `dev:${tenant}`,
      role: 'MEMBER',
      quota: { maxJobs: 1000, jobCount: 0, maxConcurrentExecutions: 100, maxExecutionsPerMinute: 600 },
    });
  });

  it('lets a VIEWER read but not create jobs (FORBIDDEN)', async () => {
    const viewer = tokenFor(tenant, 'viewer');
    expect((await gql(k.url, viewer, COUNT)).errors).toBeUndefined();
    const result = await gql(k.url, viewer, CREATE, {
      input: { name: 'x', schedule: { intervalSeconds: 60 }, target: { handler: 'noop' } },
    });
    expect(result.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });

  describe('bad input gets BAD_USER_INPUT and stores nothing', () => {
    const target = { handler: 'noop' };
    const schedule = { intervalSeconds: 60 };
    const cases: [string, Record<string, unknown>][] = [
      ['an invalid cron', { name: 'j', schedule: { cron: 'every day at noon' }, target }],
      ['a cron with 7 fields', { name: 'j', schedule: { cron: '0 0 0 * * * 2030' }, target }],
      ['a cron that never fires', { name: 'j', schedule: { cron: '0 0 30 2 *' }, target }],
      ['an unknown time zone', { name: 'j', schedule: { cron: '0 * * * *', timezone: 'Mars/Olympus_Mons' }, target }],
      ['an interval under 1 s', { name: 'j', schedule: { intervalSeconds: 0 }, target }],
      ['two schedule kinds', { name: 'j', schedule: { intervalSeconds: 60, cron: '* * * * *' }, target }],
      ['no schedule kind', { name: 'j', schedule: {}, target }],
      ['a malformed URL', { name: 'j', schedule, target: { http: { url: 'http//nope' } } }],
      ['a non-http URL', { name: 'j', schedule, target: { http: { url: 'ftp://example.com/x' } } }],
      ['two target kinds', { name: 'j', schedule, target: { handler: 'noop', http: { url: 'https://example.com' } } }],
      ['no target kind', { name: 'j', schedule, target: {} }],
      ['an unknown handler', { name: 'j', schedule, target: { handler: 'launch-rockets' } }],
      ['an empty name', { name: '   ', schedule, target }],
      ['a timeout of 0', { name: 'j', schedule, target, timeoutSeconds: 0 }],
      ['a run time that is not a date', { name: 'j', schedule: { runAt: 'tomorrow' }, target }],
    ];
    it.each(cases)('%s', async (_label, input) => {
      const result = await gql(k.url, member, CREATE, { input });
      expect(result.status).toBeLessThan(500);
      expect(result.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
      expect(result.errors?.[0].message.length).toBeGreaterThan(10);
      expect(JSON.stringify(result.errors)).not.toMatch(/at .*\.(ts|js):\d+/);
    });

    it.each([
      ['first > 100', '{ jobs(first: 101) { totalCount } }'],
      ['a negative last', '{ executions(last: -1) { edges { cursor } } }'],
      ['a malformed cursor', '{ executions(after: "bm90LWEtY3Vyc29y") { edges { cursor } } }'],
      ['an unknown field', '{ jobs { nope } }'],
      ['a syntax error', '{ jobs { '],
      // 15 levels: jobs > edges > node > (executions > edges > node > job) x 3 > id
      [
        'a query nested too deep',
        '{ jobs { edges { node { executions { edges { node { job { executions { edges { node { job { executions { edges { node { job { id } } } } } } } } } } } } } } } }',
      ],
      ['an alias flood', `{ ${Array.from({ length: 501 }, (_, i) => `a${i}: viewer { tenantId }`).join(' ')} }`],
    ])('%s', async (_label, query) => {
      const result = await gql(k.url, member, query);
      expect(result.status).toBeLessThan(500);
      expect(result.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    });

    it('left no job behind', async () => {
      const data = await gqlOk(k.url, member, COUNT);
      expect(data).toEqual({ viewer: { quota: { jobCount: 0 } }, jobs: { totalCount: 0 } });
    });
  });

  it('pages jobs newest first with opaque cursors, and filters by name prefix and status', async () => {
    const other = tokenFor(uniqueName('pager'), 'member');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const data = await gqlOk(k.url, other, CREATE, {
        input: { name: `Report ${i}`, schedule: { intervalSeconds: 3600 }, target: { handler: 'noop' }, paused: i === 4 },
      });
      ids.push(data.createJob.job.id);
    }
    const page = (args: string) =>
      gqlOk(
        k.url,
        other,
        `{ jobs(${args}) { totalCount edges { cursor node { id name status } } pageInfo { hasNextPage hasPreviousPage endCursor startCursor } } }`,
      );
    const first = (await page('first: 2')).jobs;
    expect(first.totalCount).toBe(5);
    expect(first.edges.map((e: any) => e.node.id)).toEqual([ids[4], ids[3]]);
    expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const second = (await page(`first: 2, after: "${first.pageInfo.endCursor}"`)).jobs;
    expect(second.edges.map((e: any) => e.node.id)).toEqual([ids[2], ids[1]]);
    const back = (await page(`last: 2, before: "${second.pageInfo.startCursor}"`)).jobs;
    expect(back.edges.map((e: any) => e.node.id)).toEqual([ids[4], ids[3]]);
    const filtered = (await page('filter: { namePrefix: "report", statuses: [PAUSED] }')).jobs;
    expect(filtered.edges.map((e: any) => e.node)).toEqual([{ id: ids[4], name: 'Report 4', status: 'PAUSED' }]);
  });

  it('returns the first job for a repeated idempotency key', async () => {
    const input = { name: 'once', schedule: { intervalSeconds: 3600 }, target: { handler: 'noop' }, idempotencyKey: 'k-1' };
    const other = tokenFor(uniqueName('idem'), 'member');
    const [a, b] = await Promise.all([
      gqlOk(k.url, other, CREATE, { input }),
      gqlOk(k.url, other, CREATE, { input: { ...input, name: 'twice' } }),
    ]);
    expect(a.createJob.job.id).toBe(b.createJob.job.id);
    expect((await gqlOk(k.url, other, COUNT)).jobs.totalCount).toBe(1);
  });

  it('answers health and readiness probes', async () => {
    const base = k.url.replace(/\/graphql$/, '');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
  });
});
