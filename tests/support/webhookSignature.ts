import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ReceivedRequest } from './httpReceiver.js';

/**
 * Verifies X-Kairos-Signature (v1, deprecated) the way a receiver would: `t=<unix s>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`
 * with the tenant's webhook secret, and a timestamp within `toleranceSeconds` of arrival.
 */
export function signatureValid(request: ReceivedRequest, secret: string, toleranceSeconds = 300): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(request.headers['x-kairos-signature'] ?? ''));
  if (!match) return false;
  if (Math.abs(Number(match[1]) - request.at / 1000) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${request.body}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2], 'hex'));
}

/**
 * Verifies X-Kairos-Signature-V2 the way a receiver would: `t=<unix s>,v2=<hex HMAC-SHA256 of
 * "v2\n<t>\n<X-Kairos-Execution-Id>\n<method>\n<targetUrl>\n<raw body>">`, where `targetUrl` is the job's
 * URL as the receiver knows it (not rebuilt from the request), the method and execution id are the
 * request's own, and Idempotency-Key, when present, is the same id.
 */
export function signatureV2Valid(request: ReceivedRequest, secret: string, targetUrl: string, toleranceSeconds = 300): boolean {
  const match = /^t=(\d+),v2=([0-9a-f]{64})$/.exec(String(request.headers['x-kairos-signature-v2'] ?? ''));
  const executionId = request.headers['x-kairos-execution-id'];
  if (!match || typeof executionId !== 'string') return false;
  const idempotencyKey = request.headers['idempotency-key'];
  if (idempotencyKey !== undefined && idempotencyKey !== executionId) return false;
  if (Math.abs(Number(match[1]) - request.at / 1000) > toleranceSeconds) return false;
  const signed = `v2\n${match[1]}\n${executionId}\n${request.method}\n${targetUrl}\n${request.body}`;
  const expected = createHmac('sha256', secret).update(signed).digest();
  return timingSafeEqual(expected, Buffer.from(match[2], 'hex'));
}
