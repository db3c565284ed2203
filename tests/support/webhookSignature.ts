import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ReceivedRequest } from './httpReceiver.js';

/**
 * The timestamp and the signatures of a `t=<unix s>,<scheme>=<hex>[,<scheme>=<hex>...]` header
 * (several during a secret rotation's grace, newest secret first), or null when it is malformed.
 */
export function signaturesOf(header: unknown, scheme: 'v1' | 'v2'): { t: string; signatures: Buffer[] } | null {
  const match = new RegExp(`^t=(\\d+)((?:,${scheme}=[0-9a-f]{64})+)$`).exec(typeof header === 'string' ? header : '');
  if (!match) return null;
  return {
    t: match[1],
    signatures: match[2]
      .split(`,${scheme}=`)
      .slice(1)
      .map((hex) => Buffer.from(hex, 'hex')),
  };
}

/** True when one of `signatures` is the HMAC-SHA256 of `signed` with `secret` (compared in constant time). */
function anySigned(signatures: Buffer[], secret: string, signed: string): boolean {
  const expected = createHmac('sha256', secret).update(signed).digest();
  return signatures.some((given) => timingSafeEqual(expected, given));
}

/**
 * Verifies X-Kairos-Signature (v1, deprecated) the way a receiver would: `t=<unix s>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`
 * (one v1 per secret during a rotation's grace) with the tenant's webhook secret, and a timestamp within `toleranceSeconds` of arrival.
 */
export function signatureValid(request: ReceivedRequest, secret: string, toleranceSeconds = 300): boolean {
  const parsed = signaturesOf(request.headers['x-kairos-signature'], 'v1');
  if (!parsed) return false;
  if (Math.abs(Number(parsed.t) - request.at / 1000) > toleranceSeconds) return false;
  return anySigned(parsed.signatures, secret, `${parsed.t}.${request.body}`);
}

/**
 * Verifies X-Kairos-Signature-V2 the way a receiver would: `t=<unix s>,v2=<hex HMAC-SHA256 of
 * "v2\n<t>\n<X-Kairos-Execution-Id>\n<method>\n<targetUrl>\n<raw body>">` (one v2 per secret during a
 * rotation's grace), where `targetUrl` is the job's URL as the receiver knows it (not rebuilt from
 * the request), the method and execution id are the request's own, and Idempotency-Key, when
 * present, is the same id.
 */
export function signatureV2Valid(request: ReceivedRequest, secret: string, targetUrl: string, toleranceSeconds = 300): boolean {
  const parsed = signaturesOf(request.headers['x-kairos-signature-v2'], 'v2');
  const executionId = request.headers['x-kairos-execution-id'];
  if (!parsed || typeof executionId !== 'string') return false;
  const idempotencyKey = request.headers['idempotency-key'];
  if (idempotencyKey !== undefined && idempotencyKey !== executionId) return false;
  if (Math.abs(Number(parsed.t) - request.at / 1000) > toleranceSeconds) return false;
  return anySigned(parsed.signatures, secret, `v2\n${parsed.t}\n${executionId}\n${request.method}\n${targetUrl}\n${request.body}`);
}
