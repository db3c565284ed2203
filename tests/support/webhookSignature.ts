import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ReceivedRequest } from './httpReceiver.js';

/**
 * Verifies X-Kairos-Signature the way a receiver would: `t=<unix s>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`
 * with the tenant's webhook secret, and a timestamp within `toleranceSeconds` of arrival.
 */
export function signatureValid(request: ReceivedRequest, secret: string, toleranceSeconds = 300): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(request.headers['x-kairos-signature'] ?? ''));
  if (!match) return false;
  if (Math.abs(Number(match[1]) - request.at / 1000) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${request.body}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2], 'hex'));
}
