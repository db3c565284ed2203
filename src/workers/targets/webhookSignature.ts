import { createHmac } from 'node:crypto';

/**
 * How Kairos signs an HTTP delivery with the tenant's webhook secret (docs/security.md, "Webhook signatures").
 * Both headers are sent during the transition; v1 is deprecated and stops being sent in Kairos 0.3.0.
 * During a rotation's grace a header carries one signature per secret, newest first, after one `t=`
 * (`t=<t>,v2=<new>,v2=<previous>`), so a receiver that knows either secret verifies the delivery.
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
 * X-Kairos-Signature (deprecated): `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, one `v1=`
 * per secret (newest first). It binds nothing but the body, so a captured delivery verifies again
 * under another execution id, URL or method.
 */
export function signature(secrets: string | readonly string[], body: string, now: Date): string {
  const t = unixSeconds(now);
  return header(t, 'v1', secrets, `${t}.${body}`);
}

/**
 * X-Kairos-Signature-V2: `t=<unix seconds>,v2=<hex HMAC-SHA256 of "v2\n<t>\n<execution id>\n<METHOD>\n<url>\n<body>">`,
 * one `v2=` per secret (newest first). Newlines separate the fields because none but the body (last)
 * can contain one, so two different requests never give the same string (a "." would let a URL and
 * a body prefix trade characters).
 */
export function signatureV2(secrets: string | readonly string[], request: SignedRequest, now: Date): string {
  const t = unixSeconds(now);
  return header(t, 'v2', secrets, signedStringV2(t, request));
}

/** `t=<t>,<scheme>=<hex HMAC of signed with the first secret>,<scheme>=<... with the second>...`. */
function header(t: number, scheme: 'v1' | 'v2', secrets: string | readonly string[], signed: string): string {
  const keys = typeof secrets === 'string' ? [secrets] : secrets;
  if (keys.length === 0) throw new Error('a webhook signature needs at least one secret');
  return [`t=${t}`, ...keys.map((key) => `${scheme}=${createHmac('sha256', key).update(signed).digest('hex')}`)].join(',');
}

/** The exact string a v2 signature is the HMAC of. */
function signedStringV2(t: number, { executionId, method, url, body }: SignedRequest): string {
  return `v2\n${t}\n${executionId}\n${method}\n${url}\n${body}`;
}

function unixSeconds(now: Date): number {
  return Math.floor(now.getTime() / 1000);
}
