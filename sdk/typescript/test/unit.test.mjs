// Pure logic of the client, against the built dist/: webhook verification, error mapping (GraphQL errors and WebSocket close codes),
// the opt-in RATE_LIMITED retry and the queries executionsAll sends (an injected fetch stands in
// for the server) and the backoff.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { KairosClient, KairosError, verifyWebhook, verifyWebhookV2, backoffMs } from '../dist/index.js';
import { CLOSE_CODES } from '../dist/closeCodes.js';

const secret = 'whsec_test_secret';
const body = '{"executionId":"e1","payload":{"a":1}}';
const at = Date.parse('2026-01-01T00:00:00Z');
function sign(t, raw, key = secret) {
  return `t=${t},v1=${createHmac('sha256', key).update(`${t}.${raw}`).digest('hex')}`;
}

test('verifyWebhook accepts a signature made the way Kairos signs, as string or bytes', async () => {
  const header = sign(at / 1000, body);
  assert.equal(await verifyWebhook(body, header, secret, { now: at + 1000 }), true);
  assert.equal(await verifyWebhook(new TextEncoder().encode(body), header, secret, { now: at }), true);
});

test('verifyWebhook refuses another body, another secret, a stale timestamp and a malformed header', async () => {
  const header = sign(at / 1000, body);
  assert.equal(await verifyWebhook(body + ' ', header, secret, { now: at }), false);
  assert.equal(await verifyWebhook(body, header, 'other', { now: at }), false);
  assert.equal(await verifyWebhook(body, header, secret, { now: at + 301_000 }), false);
  assert.equal(await verifyWebhook(body, header, secret, { now: at + 301_000, toleranceSeconds: 400 }), true);
  assert.equal(await verifyWebhook(body, header.replace('v1=', 'v2='), secret, { now: at }), false);
  assert.equal(await verifyWebhook(body, undefined, secret, { now: at }), false);
});

test("verifyWebhook refuses node:http's array form of a header (several values), even of a valid signature", async () => {
  const header = sign(at / 1000, body);
  assert.equal(await verifyWebhook(body, [header], secret, { now: at }), false);
  assert.equal(await verifyWebhook(body, [header, header], secret, { now: at }), false);
  assert.equal(await verifyWebhook(body, null, secret, { now: at }), false);
});

test('verifyWebhook uses an injected HMAC when given one', async () => {
  const calls = [];
  const hmac = (key, message) => {
    calls.push(new TextDecoder().decode(message));
    return createHmac('sha256', Buffer.from(key)).update(message).digest();
  };
  assert.equal(await verifyWebhook(body, sign(at / 1000, body), secret, { now: at, hmac }), true);
  assert.deepEqual(calls, [`${at / 1000}.${body}`]);
});

// v2, as the server signs it: HMAC-SHA256 of "v2\n<t>\n<execution id>\n<METHOD>\n<url>\n<body>".
const executionId = 'RXhlY3V0aW9uOjY1ZjBhMWIyYzNkNGU1ZjYwMTIzNDU2Nw';
const url = 'https://hooks.example.com/kairos?tenant=a';
function signV2(t, { id = executionId, method = 'POST', target = url, raw = body, key = secret } = {}) {
  return `t=${t},v2=${createHmac('sha256', key).update(`v2\n${t}\n${id}\n${method}\n${target}\n${raw}`).digest('hex')}`;
}
/** The headers of a delivery as node:http gives them. */
function delivered(signature = signV2(at / 1000), id = executionId) {
  return { 'x-kairos-signature-v2': signature, 'x-kairos-execution-id': id, 'idempotency-key': id, 'x-kairos-signature': sign(at / 1000, body) };
}

test('verifyWebhookV2 matches the known vector the server test pins (fixed secret and time)', async () => {
  // The same vector as tests/unit/webhookSignature.test.ts: a change on either side fails one of them.
  const known = 't=1740830400,v2=13003e91464601658a3e785df63fca434d1e8555911965b012222e67cae90607';
  const input = { secret, method: 'POST', url, body: '{"hello":"world"}', now: 1740830400_000 };
  assert.equal(await verifyWebhookV2({ ...input, signatureHeader: known, executionId }), true);
  assert.equal(await verifyWebhookV2({ ...input, method: 'GET', body: '', signatureHeader: 't=1740830400,v2=3ef98a8205e0c798c100798fc0c0f880ee98c342064a7538059683d316b7ff55', executionId }), true);
});

test('verifyWebhookV2 accepts a delivery from node:http headers, fetch Headers, or the two values given apart', async () => {
  const input = { secret, method: 'POST', url, body, now: at + 1000 };
  assert.equal(await verifyWebhookV2({ ...input, headers: delivered() }), true);
  assert.equal(await verifyWebhookV2({ ...input, body: new TextEncoder().encode(body), headers: new Headers(delivered()) }), true);
  assert.equal(await verifyWebhookV2({ ...input, signatureHeader: signV2(at / 1000), executionId }), true);
  const get = { secret, method: 'GET', url, body: '', now: at };
  assert.equal(await verifyWebhookV2({ ...get, headers: delivered(signV2(at / 1000, { method: 'GET', raw: '' })) }), true);
});

test('verifyWebhookV2 refuses a replay under another execution id, to another URL or with another method', async () => {
  const input = { secret, method: 'POST', url, body, now: at };
  const other = 'RXhlY3V0aW9uOjY1ZjBhMWIyYzNkNGU1ZjYwMTIzNDU2OA';
  assert.equal(await verifyWebhookV2({ ...input, headers: delivered(signV2(at / 1000), other) }), false);
  assert.equal(await verifyWebhookV2({ ...input, url: 'https://hooks.example.com/kairos?tenant=b', headers: delivered() }), false);
  assert.equal(await verifyWebhookV2({ ...input, method: 'PUT', headers: delivered() }), false);
  // A GET delivery's header (empty body) does not verify a GET to another URL.
  const getHeaders = delivered(signV2(at / 1000, { method: 'GET', raw: '' }));
  assert.equal(await verifyWebhookV2({ ...input, method: 'GET', body: '', url: 'https://hooks.example.com/admin', headers: getHeaders }), false);
  // An Idempotency-Key other than the signed execution id (what a receiver might deduplicate on).
  assert.equal(await verifyWebhookV2({ ...input, headers: { ...delivered(), 'idempotency-key': other } }), false);
  // The deprecated v1 header of the same replays still verifies: the gap v2 closes.
  assert.equal(await verifyWebhook(body, delivered(signV2(at / 1000), other)['x-kairos-signature'], secret, { now: at }), true);
});

test('verifyWebhookV2 refuses another body, another secret, a stale timestamp, a v1 header and missing or repeated headers', async () => {
  const input = { secret, method: 'POST', url, body, now: at };
  assert.equal(await verifyWebhookV2({ ...input, body: body + ' ', headers: delivered() }), false);
  assert.equal(await verifyWebhookV2({ ...input, secret: 'other', headers: delivered() }), false);
  assert.equal(await verifyWebhookV2({ ...input, now: at + 301_000, headers: delivered() }), false);
  assert.equal(await verifyWebhookV2({ ...input, now: at + 301_000, toleranceSeconds: 400, headers: delivered() }), true);
  assert.equal(await verifyWebhookV2({ ...input, signatureHeader: sign(at / 1000, body), executionId }), false);
  assert.equal(await verifyWebhookV2({ ...input, headers: { 'x-kairos-execution-id': executionId } }), false);
  assert.equal(await verifyWebhookV2({ ...input, headers: { 'x-kairos-signature-v2': signV2(at / 1000) } }), false);
  assert.equal(await verifyWebhookV2({ ...input, signatureHeader: [signV2(at / 1000)], executionId }), false);
  assert.equal(await verifyWebhookV2({ ...input, signatureHeader: signV2(at / 1000), executionId: [executionId] }), false);
});

test('verifyWebhookV2 signs the execution id, method and URL before the body, with an injected HMAC', async () => {
  const calls = [];
  const hmac = (key, message) => {
    calls.push(new TextDecoder().decode(message));
    return createHmac('sha256', Buffer.from(key)).update(message).digest();
  };
  assert.equal(await verifyWebhookV2({ secret, method: 'POST', url, body, now: at, hmac, headers: delivered() }), true);
  assert.deepEqual(calls, [`v2\n${at / 1000}\n${executionId}\nPOST\n${url}\n${body}`]);
});

// During a secret rotation's grace Kairos signs with both secrets, the newest first, after one timestamp.
const oldSecret = 'whsec_old_secret';
/** `t=<t>,v2=<new>,v2=<old>`: each secret's signature of the same request. */
const rotatedV2 = (t = at / 1000) => `${signV2(t)},v2=${signV2(t, { key: oldSecret }).split(',v2=')[1]}`;

test('verifyWebhookV2 during a rotation: the two-signature header verifies with either secret or a list; neither secret is refused', async () => {
  const input = { method: 'POST', url, body, now: at };
  const headers = delivered(rotatedV2());
  assert.equal(await verifyWebhookV2({ ...input, secret: [secret, oldSecret], headers }), true);
  assert.equal(await verifyWebhookV2({ ...input, secret: [oldSecret], headers }), true);
  assert.equal(await verifyWebhookV2({ ...input, secret, headers }), true);
  assert.equal(await verifyWebhookV2({ ...input, secret: oldSecret, headers }), true);
  assert.equal(await verifyWebhookV2({ ...input, secret: ['third', 'fourth'], headers }), false);
  // A receiver given [new, old] verifies a header signed with the old secret alone (and the new alone).
  assert.equal(await verifyWebhookV2({ ...input, secret: [secret, oldSecret], headers: delivered(signV2(at / 1000, { key: oldSecret })) }), true);
  assert.equal(await verifyWebhookV2({ ...input, secret: [secret, oldSecret], headers: delivered(signV2(at / 1000)) }), true);
  assert.equal(await verifyWebhookV2({ ...input, secret: [], headers }), false);
});

test('verifyWebhookV2 refuses a tampered signature and a header past the replay window, either way', async () => {
  const input = { method: 'POST', url, body, secret: [secret, oldSecret] };
  const header = rotatedV2();
  const flipped = (h, i) => h.slice(0, i) + (h[i] === '0' ? '1' : '0') + h.slice(i + 1);
  // Each signature altered in one digit: the other still verifies; both altered, nothing does.
  const firstDigit = header.indexOf('v2=') + 3;
  const lastDigit = header.length - 1;
  assert.equal(await verifyWebhookV2({ ...input, now: at, headers: delivered(flipped(header, firstDigit)) }), true);
  assert.equal(await verifyWebhookV2({ ...input, now: at, headers: delivered(flipped(flipped(header, firstDigit), lastDigit)) }), false);
  assert.equal(await verifyWebhookV2({ ...input, secret: oldSecret, now: at, headers: delivered(flipped(header, lastDigit)) }), false);
  // A timestamp changed is a signature that no longer matches.
  assert.equal(await verifyWebhookV2({ ...input, now: at, headers: delivered(header.replace(`t=${at / 1000}`, `t=${at / 1000 + 1}`)) }), false);
  // The window: 300 s by default, either way, settable.
  assert.equal(await verifyWebhookV2({ ...input, now: at + 300_000, headers: delivered(header) }), true);
  assert.equal(await verifyWebhookV2({ ...input, now: at + 301_000, headers: delivered(header) }), false);
  assert.equal(await verifyWebhookV2({ ...input, now: at - 301_000, headers: delivered(header) }), false);
  assert.equal(await verifyWebhookV2({ ...input, now: at - 301_000, toleranceSeconds: 600, headers: delivered(header) }), true);
  assert.equal(await verifyWebhookV2({ ...input, now: at + 61_000, toleranceSeconds: 60, headers: delivered(header) }), false);
  // Malformed lists: no timestamp, a signature of the wrong scheme among them, a trailing comma.
  assert.equal(await verifyWebhookV2({ ...input, now: at, headers: delivered(header.slice(header.indexOf(',') + 1)) }), false);
  assert.equal(await verifyWebhookV2({ ...input, now: at, headers: delivered(header.replace(/,v2=(?=[^v]*$)/, ',v1=')) }), false);
  assert.equal(await verifyWebhookV2({ ...input, now: at, headers: delivered(`${header},`) }), false);
});

test('verifyWebhook (v1) during a rotation: a two-signature header verifies with either secret or a list', async () => {
  const header = `${sign(at / 1000, body)},v1=${sign(at / 1000, body, oldSecret).split(',v1=')[1]}`;
  assert.equal(await verifyWebhook(body, header, secret, { now: at }), true);
  assert.equal(await verifyWebhook(body, header, oldSecret, { now: at }), true);
  assert.equal(await verifyWebhook(body, sign(at / 1000, body, oldSecret), [secret, oldSecret], { now: at }), true);
  assert.equal(await verifyWebhook(body, header, ['third'], { now: at }), false);
  assert.equal(await verifyWebhook(body, header, [secret], { now: at - 301_000 }), false);
});

function fakeFetch(responses) {
  const requests = [];
  const fetch = async (url, init) => {
    requests.push({ url, init, body: JSON.parse(init.body) });
    const next = responses.shift();
    if (!next) throw new Error('no more responses');
    return new Response(JSON.stringify(next.body), { status: next.status ?? 200, headers: { 'content-type': 'application/json', ...next.headers } });
  };
  return { fetch, requests };
}

const rateLimited = (retryAfter) => ({
  status: 429,
  headers: { 'retry-after': String(retryAfter) },
  body: { errors: [{ message: 'Too many writes', extensions: { code: 'RATE_LIMITED', retryAfterSeconds: retryAfter } }] },
});

test('a GraphQL error becomes a KairosError with its code, details and HTTP status', async () => {
  const { fetch, requests } = fakeFetch([{ body: { errors: [{ message: 'Job quota reached', path: ['createJob'], extensions: { code: 'QUOTA_EXCEEDED', maxJobs: 5 } }], data: null } }]);
  const client = new KairosClient({ url: 'http://kairos.test/graphql', apiKey: 'kairos_abc', fetch });
  const error = await client.createJob({ name: 'x', schedule: { intervalSeconds: 5 }, target: { handler: 'noop' } }).catch((e) => e);
  assert.ok(error instanceof KairosError);
  assert.equal(error.code, 'QUOTA_EXCEEDED');
  assert.deepEqual(error.details, { maxJobs: 5 });
  assert.deepEqual(error.path, ['createJob']);
  assert.equal(requests[0].init.headers.authorization, 'Bearer kairos_abc');
  assert.match(requests[0].body.query, /mutation CreateJob/);
});

test('RATE_LIMITED is thrown at once unless retries are asked for', async () => {
  const { fetch, requests } = fakeFetch([rateLimited(7)]);
  const client = new KairosClient({ url: 'http://kairos.test/graphql', token: 't', fetch });
  const error = await client.triggerJob('j1').catch((e) => e);
  assert.equal(error.code, 'RATE_LIMITED');
  assert.equal(error.retryAfterSeconds, 7);
  assert.equal(error.status, 429);
  assert.equal(requests.length, 1);
});

test('the opt-in retry waits the Retry-After seconds, then succeeds', async () => {
  const execution = { id: 'e1' };
  const { fetch, requests } = fakeFetch([rateLimited(1), { body: { data: { triggerJob: { execution } } } }]);
  const client = new KairosClient({ url: 'http://kairos.test/graphql', token: () => 'fresh', fetch, retryRateLimited: true });
  const started = Date.now();
  assert.deepEqual(await client.triggerJob('j1'), execution);
  assert.equal(requests.length, 2);
  assert.ok(Date.now() - started >= 950, 'waited about a second');
  assert.equal(requests[1].init.headers.authorization, 'Bearer fresh');
});

test('the retry gives up past maxRetries or when asked to wait longer than maxWaitSeconds', async () => {
  let { fetch, requests } = fakeFetch([rateLimited(120)]);
  let client = new KairosClient({ url: 'http://kairos.test/graphql', token: 't', fetch, retryRateLimited: { maxWaitSeconds: 60 } });
  assert.equal((await client.pauseJob('j').catch((e) => e)).code, 'RATE_LIMITED');
  assert.equal(requests.length, 1);
  ({ fetch, requests } = fakeFetch([rateLimited(0.01), rateLimited(0.01), rateLimited(0.01)]));
  client = new KairosClient({ url: 'http://kairos.test/graphql', token: 't', fetch, retryRateLimited: { maxRetries: 2 } });
  assert.equal((await client.pauseJob('j').catch((e) => e)).code, 'RATE_LIMITED');
  assert.equal(requests.length, 3);
});

test('an unreachable server is NETWORK_ERROR', async () => {
  const client = new KairosClient({ url: 'http://kairos.test/graphql', token: 't', fetch: async () => { throw new TypeError('fetch failed'); } });
  const error = await client.viewer().catch((e) => e);
  assert.equal(error.code, 'NETWORK_ERROR');
  assert.match(error.message, /kairos\.test/);
});

/** One `executions` answer: nodes with these ids, in this order, and the page info. */
const executionsPage = (ids, pageInfo) => ({
  body: {
    data: {
      executions: {
        edges: ids.map((id) => ({ cursor: `c-${id}`, node: { id } })),
        pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: ids.length ? `c-${ids[0]}` : null, endCursor: ids.length ? `c-${ids.at(-1)}` : null, ...pageInfo },
      },
    },
  },
});

test('executionsAll lists history, newest first, unless given a phase or statuses', async () => {
  const { fetch, requests } = fakeFetch([executionsPage(['e3', 'e2'], { hasNextPage: true }), executionsPage(['e1'])]);
  const client = new KairosClient({ url: 'http://kairos.test/graphql', token: 't', fetch });
  const ids = [];
  for await (const e of client.executionsAll({ jobId: 'j1', pageSize: 2 })) ids.push(e.id);
  assert.deepEqual(ids, ['e3', 'e2', 'e1']);
  assert.deepEqual(requests[0].body.variables, { first: 2, after: null, filter: { jobId: 'j1', phase: 'HISTORY' } });
  assert.deepEqual(requests[1].body.variables, { first: 2, after: 'c-e2', filter: { jobId: 'j1', phase: 'HISTORY' } });

  const statuses = fakeFetch([executionsPage(['e9'])]);
  for await (const _ of new KairosClient({ url: 'http://kairos.test/graphql', token: 't', fetch: statuses.fetch }).executionsAll({ statuses: ['QUEUED'] }));
  assert.deepEqual(statuses.requests[0].body.variables.filter, { statuses: ['QUEUED'] });

  const everything = fakeFetch([executionsPage(['e9'])]);
  for await (const _ of new KairosClient({ url: 'http://kairos.test/graphql', token: 't', fetch: everything.fetch }).executionsAll({ phase: null }));
  assert.deepEqual(everything.requests[0].body.variables, { first: 100, after: null, filter: { phase: null } });
});

test("executionsAll with phase 'UPCOMING' lists the soonest first, paging backward", async () => {
  // The server lists each page newest first; the last page of the list holds the soonest.
  const { fetch, requests } = fakeFetch([executionsPage(['u2', 'u1'], { hasPreviousPage: true }), executionsPage(['u4', 'u3'], { hasPreviousPage: true }), executionsPage(['u5'])]);
  const client = new KairosClient({ url: 'http://kairos.test/graphql', token: 't', fetch });
  const ids = [];
  for await (const e of client.executionsAll({ jobId: 'j1', phase: 'UPCOMING', pageSize: 2 })) ids.push(e.id);
  assert.deepEqual(ids, ['u1', 'u2', 'u3', 'u4', 'u5']);
  assert.deepEqual(requests[0].body.variables, { last: 2, before: null, filter: { jobId: 'j1', phase: 'UPCOMING' } });
  assert.deepEqual(requests[1].body.variables, { last: 2, before: 'c-u2', filter: { jobId: 'j1', phase: 'UPCOMING' } });
  assert.equal(requests[2].body.variables.before, 'c-u4');
});

test('reconnection backoff doubles up to its cap, with at most 50 % jitter', () => {
  assert.equal(backoffMs(0, {}, () => 0), 500);
  assert.equal(backoffMs(3, {}, () => 0), 4000);
  assert.equal(backoffMs(20, { maxDelayMs: 10_000 }, () => 0), 10_000);
  assert.equal(backoffMs(1, { initialDelayMs: 100 }, () => 1), 300);
});

/** A WebSocket class whose sockets open, then close with `code` once the client sends connection_init. */
function closingWebSocket(code, reason) {
  return class {
    static CONNECTING = 0;
    static OPEN = 1;
    static CLOSING = 2;
    static CLOSED = 3;
    readyState = 0;
    constructor() {
      setTimeout(() => {
        this.readyState = 1;
        this.onopen?.({});
      });
    }
    send() {
      setTimeout(() => this.close(code, reason));
    }
    close(closeCode, closeReason) {
      if (this.readyState === 3) return;
      this.readyState = 3;
      this.onclose?.({ code: closeCode, reason: closeReason, wasClean: true });
    }
  };
}

test('a watch closed by the server ends with the error code of its close code (CLOSE_CODES), a drop with NETWORK_ERROR', async () => {
  // The server's own refusals, pinned: a change here is a change of what callers see.
  assert.equal(CLOSE_CODES[4401], 'UNAUTHENTICATED');
  assert.equal(CLOSE_CODES[4429], 'QUOTA_EXCEEDED');
  assert.equal(CLOSE_CODES[4500], 'INTERNAL_SERVER_ERROR');
  const expected = [...Object.entries(CLOSE_CODES).map(([code, error]) => [Number(code), error]), [4408, 'NETWORK_ERROR'], [1006, 'NETWORK_ERROR']];
  for (const [closeCode, code] of expected) {
    // No reconnection: the first close ends the watch, whatever its code.
    const client = new KairosClient({ url: 'http://kairos.test/graphql', token: 't', webSocketImpl: closingWebSocket(closeCode, 'why'), reconnect: { attempts: 0 } });
    const error = await client.watchExecutions().next().catch((e) => e);
    assert.ok(error instanceof KairosError, `close code ${closeCode}: ${error}`);
    assert.deepEqual([error.code, error.message, error.details.closeCode], [code, 'why', closeCode], `close code ${closeCode}`);
    await client.close();
  }
});

test('backfillJob sends the range as ISO instants (a Date or a string) and dryRun, and answers the result', async () => {
  const result = { dryRun: true, instants: [{ at: '2026-03-29T01:00:00.000Z', local: '2026-03-29T03:00:00.000+02:00' }], excluded: 0, created: 0, existing: null, lastStartAt: null };
  const { fetch, requests } = fakeFetch([{ body: { data: { backfillJob: result } } }]);
  const client = new KairosClient({ url: 'http://kairos.test/graphql', token: 't', fetch });
  assert.deepEqual(await client.backfillJob('j1', new Date('2026-03-29T00:00:00+01:00'), '2026-03-30T00:00:00Z', true), result);
  const sent = JSON.parse(requests[0].init.body);
  assert.match(sent.query, /backfillJob\(id: \$id, from: \$from, to: \$to, dryRun: \$dryRun\)/);
  assert.deepEqual(sent.variables, { id: 'j1', from: '2026-03-28T23:00:00.000Z', to: '2026-03-30T00:00:00Z', dryRun: true });
});
