import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { callHttpTarget, RESULT_BODY_LIMIT, type HttpCall } from '../../src/workers/targets/httpTarget.js';
import { signatureV2 } from '../../src/workers/targets/webhookSignature.js';

const SECRET = 'whsec_test_secret';
/** 2025-03-01T12:00:00Z is 1740830400 s; the fraction is dropped from `t`. */
const NOW = new Date('2025-03-01T12:00:00.750Z');
const T = 1740830400;
const SCHEDULED_FOR = new Date('2025-03-01T11:59:58.125Z');

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
}

const received: Received[] = [];
let hangingResponses: ServerResponse[] = [];
let onHangRequest: (() => void) | null = null;
let server: Server;
let base: string;

// Hooks sit inside a describe so they run before the leak check of tests/support/leakCheck.ts.
describe('HTTP target against a local receiver', () => {
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          rawBody: Buffer.concat(chunks).toString('utf8'),
        });
        switch (req.url) {
          case '/ok':
            res.writeHead(200, { 'Content-Type': 'application/json', 'X-Receiver': 'test' });
            res.end('{"received":true}');
            return;
          case '/created':
            res.writeHead(201);
            res.end();
            return;
          case '/fail':
            res.writeHead(500, { 'Content-Type': 'text/plain' });
            res.end('boom');
            return;
          case '/not-found':
            res.writeHead(404);
            res.end('nope');
            return;
          case '/redirect':
            res.writeHead(302, { Location: '/ok' });
            res.end('moved');
            return;
          case '/big': {
            res.writeHead(200, { 'Content-Type': 'text/plain' });
            // 100 KiB in 1 KiB chunks: "0000...", "1111...", ... so the cut point is visible.
            for (let i = 0; i < 100; i++) res.write(String(i % 10).repeat(1024));
            res.end();
            return;
          }
          case '/hang':
            hangingResponses.push(res);
            onHangRequest?.();
            return;
          default:
            res.writeHead(400);
            res.end();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const res of hangingResponses) res.destroy();
    hangingResponses = [];
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function call(overrides: Partial<HttpCall> = {}): HttpCall {
    return {
      url: `${base}/ok`,
      method: 'POST',
      headers: [],
      payloadJson: '{"hello":"world"}',
      executionId: '65f0a1b2c3d4e5f601234567',
      jobId: '507f1f77bcf86cd799439011',
      attempt: 2,
      scheduledFor: SCHEDULED_FOR,
      secret: SECRET,
      signal: new AbortController().signal,
      now: NOW,
      ...overrides,
    };
  }

  /** What a receiver does: parse `t=<s>,v1=<hex>`, recompute HMAC-SHA256("<t>.<raw body>") and compare in constant time. */
  function receiverAccepts(header: string | undefined, rawBody: string, secret: string): { ok: boolean; t: number } {
    const parts = Object.fromEntries((header ?? '').split(',').map((kv) => kv.split('=', 2) as [string, string]));
    const t = Number(parts.t);
    const given = Buffer.from(parts.v1 ?? '', 'hex');
    const expected = createHmac('sha256', secret).update(`${parts.t}.${rawBody}`).digest();
    return { ok: given.length === expected.length && timingSafeEqual(given, expected), t };
  }

  async function lastRequestAfter(fn: () => Promise<unknown>): Promise<Received> {
    const before = received.length;
    await fn();
    expect(received.length).toBe(before + 1);
    return received[received.length - 1];
  }

  describe('callHttpTarget', () => {
    it('sends the payload with every header docs/using-the-api.md lists and reports success', async () => {
      let outcome: Awaited<ReturnType<typeof callHttpTarget>> | undefined;
      const req = await lastRequestAfter(async () => {
        outcome = await callHttpTarget(call({ headers: [{ name: 'Authorization', value: 'Bearer receiver-token' }] }));
      });
      expect(req.method).toBe('POST');
      expect(req.url).toBe('/ok');
      expect(req.rawBody).toBe('{"hello":"world"}');
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.headers['idempotency-key']).toBe('65f0a1b2c3d4e5f601234567');
      expect(req.headers['x-kairos-execution-id']).toBe('65f0a1b2c3d4e5f601234567');
      expect(req.headers['x-kairos-job-id']).toBe('507f1f77bcf86cd799439011');
      expect(req.headers['x-kairos-attempt']).toBe('2');
      expect(req.headers['x-kairos-scheduled-for']).toBe('2025-03-01T11:59:58.125Z');
      expect(req.headers['x-kairos-signature']).toBe('t=1740830400,v1=46bd09f864508b84997b6c6125a03e5bb457ea18bfdc4bd04f750388abb4dddb');
      // v2 binds the execution id as sent, the method and the target URL exactly as requested (vectors: webhookSignature.test.ts).
      expect(req.headers['x-kairos-signature-v2']).toBe(
        signatureV2(SECRET, { executionId: '65f0a1b2c3d4e5f601234567', method: 'POST', url: `${base}/ok`, body: '{"hello":"world"}' }, NOW),
      );
      expect(req.headers.authorization).toBe('Bearer receiver-token');

      expect(outcome).toEqual({
        ok: true,
        status: 200,
        result: {
          status: 200,
          headers: expect.objectContaining({ 'content-type': 'application/json', 'x-receiver': 'test' }),
          body: '{"received":true}',
        },
      });
    });

    it('signs the exact raw body, which a receiver can verify with the tenant secret', async () => {
      const payloadJson = '{"amount":12.5,"note":"naïve ☃","nested":{"$where":"x"}}';
      const req = await lastRequestAfter(() => callHttpTarget(call({ payloadJson, method: 'PUT' })));
      expect(req.method).toBe('PUT');
      expect(req.rawBody).toBe(payloadJson);
      const check = receiverAccepts(req.headers['x-kairos-signature'] as string, req.rawBody, SECRET);
      expect(check).toEqual({ ok: true, t: T });
      // A receiver with another secret, or a tampered body, rejects it.
      expect(receiverAccepts(req.headers['x-kairos-signature'] as string, req.rawBody, 'other-secret').ok).toBe(false);
      expect(receiverAccepts(req.headers['x-kairos-signature'] as string, req.rawBody.replace('12.5', '99'), SECRET).ok).toBe(false);
    });

    it('sends the attempt span as traceparent when tracing is on (in place of a job header of that name), and none when off', async () => {
      const own = { name: 'traceparent', value: '00-11111111111111111111111111111111-2222222222222222-01' };
      const parent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const traced = await lastRequestAfter(() => callHttpTarget(call({ headers: [own], traceparent: parent })));
      expect(traced.headers.traceparent).toBe(parent);
      const off = await lastRequestAfter(() => callHttpTarget(call({ traceparent: null })));
      expect(off.headers.traceparent).toBeUndefined();
    });

    it('sends PATCH with a body too', async () => {
      const req = await lastRequestAfter(() => callHttpTarget(call({ method: 'PATCH', payloadJson: '[1,2]' })));
      expect(req.method).toBe('PATCH');
      expect(req.rawBody).toBe('[1,2]');
      expect(req.headers['content-type']).toBe('application/json');
    });

    it('sends GET without a body or Content-Type, and signs the empty body', async () => {
      const req = await lastRequestAfter(() => callHttpTarget(call({ method: 'GET' })));
      expect(req.method).toBe('GET');
      expect(req.rawBody).toBe('');
      expect(req.headers['content-type']).toBeUndefined();
      expect(req.headers['content-length']).toBeUndefined();
      expect(req.headers['transfer-encoding']).toBeUndefined();
      expect(req.headers['x-kairos-signature']).toBe('t=1740830400,v1=fe1909b1fabe789de078e4c7b9eb21b1e25222fcf389e37eb96a539a22a78e06');
      expect(receiverAccepts(req.headers['x-kairos-signature'] as string, '', SECRET).ok).toBe(true);
      expect(req.headers['x-kairos-signature-v2']).toBe(
        signatureV2(SECRET, { executionId: '65f0a1b2c3d4e5f601234567', method: 'GET', url: `${base}/ok`, body: '' }, NOW),
      );
      expect(req.headers['idempotency-key']).toBe('65f0a1b2c3d4e5f601234567');
    });

    it('treats any 2xx as success', async () => {
      const outcome = await callHttpTarget(call({ url: `${base}/created` }));
      expect(outcome.ok).toBe(true);
      expect(outcome.status).toBe(201);
      expect(outcome.result.body).toBe('');
    });

    it('reports a 500 as a failed attempt with its status and body', async () => {
      const outcome = await callHttpTarget(call({ url: `${base}/fail` }));
      expect(outcome.ok).toBe(false);
      expect(outcome.status).toBe(500);
      expect(outcome.result.status).toBe(500);
      expect(outcome.result.body).toBe('boom');
      expect(outcome.result.headers['content-type']).toBe('text/plain');
    });

    it('reports a 404 as a failed attempt', async () => {
      const outcome = await callHttpTarget(call({ url: `${base}/not-found` }));
      expect(outcome).toMatchObject({ ok: false, status: 404, result: { status: 404, body: 'nope' } });
    });

    it('does not follow a 302', async () => {
      const before = received.length;
      const outcome = await callHttpTarget(call({ url: `${base}/redirect` }));
      expect(outcome.ok).toBe(false);
      expect(outcome.status).toBe(302);
      expect(outcome.result.headers.location).toBe('/ok');
      expect(received.slice(before).map((r) => r.url)).toEqual(['/redirect']);
    });

    it('cuts a body over 64 KiB to exactly 64 KiB', async () => {
      expect(RESULT_BODY_LIMIT).toBe(65_536);
      const outcome = await callHttpTarget(call({ url: `${base}/big`, method: 'GET' }));
      expect(outcome.ok).toBe(true);
      expect(outcome.result.body).toHaveLength(65_536);
      // 64 chunks of 1 KiB: digits 0..9 repeating, the last kept chunk is number 63 -> "3".
      expect(outcome.result.body.slice(0, 1024)).toBe('0'.repeat(1024));
      expect(outcome.result.body.slice(63 * 1024)).toBe('3'.repeat(1024));
    });

    it('rejects when the signal is already aborted, without calling the target', async () => {
      const before = received.length;
      await expect(callHttpTarget(call({ signal: AbortSignal.abort() }))).rejects.toMatchObject({ name: 'AbortError' });
      expect(received.length).toBe(before);
    });

    it('rejects when the signal is aborted while waiting for the response', async () => {
      const controller = new AbortController();
      const arrived = new Promise<void>((resolve) => {
        onHangRequest = resolve;
      });
      const pending = callHttpTarget(call({ url: `${base}/hang`, signal: controller.signal }));
      await arrived;
      onHangRequest = null;
      controller.abort();
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    });

    it('rejects on a network error (connection refused)', async () => {
      // A port this test opened and closed again: nothing listens there any more.
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      await expect(callHttpTarget(call({ url: `http://127.0.0.1:${port}/` }))).rejects.toThrow('fetch failed');
    });
  });
});
