import { createHmac } from 'node:crypto';

/**
 * How Kairos signs an HTTP delivery with the tenant's webhook secret (docs/security.md, "Webhook signatures").
 * Both headers are sent during the transition; v1 is deprecated and stops being sent in Kairos 0.3.0.
 */

/** What a v2 signature covers besides the timestamp. */
export interface SignedRequest {
  /** Exactly the value sent in X-Kairos-Execution-Id (and Idempotency-Key). */
  executionId: string;
  method: string;
  /** Exactly the job's target URL as Kairos requests it (`target.http.url`). */
  url: string;
  /** The raw body sent: empty for GET and DELETE. */
  body: string;
}

/**
 * X-Kairos-Signature (deprecated): `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. It binds
 * nothing but the body, so a captured delivery verifies again under another execution id, URL or method.
 */
export function signature(secret: string, body: string, now: Date): string {
  const t = unixSeconds(now);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}

/**
 * X-Kairos-Signature-V2: `t=<unix seconds>,v2=<hex HMAC-SHA256 of "v2\n<t>\n<execution id>\n<METHOD>\n<url>\n<body>">`.
 * Newlines separate the fields because none but the body (last) can contain one, so two different
 * requests never give the same string (a "." would let a URL and a body prefix trade characters).
 */
export function signatureV2(secret: string, request: SignedRequest, now: Date): string {
  const t = unixSeconds(now);
  const v2 = createHmac('sha256', secret).update(signedStringV2(t, request)).digest('hex');
  return `t=${t},v2=${v2}`;
}

/** The exact string a v2 signature is the HMAC of. */
function signedStringV2(t: number, { executionId, method, url, body }: SignedRequest): string {
  return `v2\n${t}\n${executionId}\n${method}\n${url}\n${body}`;
}

function unixSeconds(now: Date): number {
  return Math.floor(now.getTime() / 1000);
}
