/** Computes HMAC-SHA256(key, message). Pass one where WebCrypto is missing; the default uses `crypto.subtle`. */
export type Hmac = (key: Uint8Array, message: Uint8Array) => Uint8Array | ArrayBuffer | Promise<Uint8Array | ArrayBuffer>;

export interface VerifyWebhookOptions {
  /**
   * The replay window: largest accepted distance between the signature's timestamp and now, in
   * seconds, either way (older or ahead of now). Default 300.
   */
  toleranceSeconds?: number;
  /** Now, in milliseconds since the epoch. Default Date.now(). */
  now?: number;
  hmac?: Hmac;
}

/**
 * One secret, or several: during a secret rotation's grace, the new and the old one (Kairos then
 * signs each delivery with both, and either verifies it).
 */
export type WebhookSecrets = string | readonly string[];

// One timestamp, then one signature per secret Kairos signed with (two during a rotation's grace, newest first).
const SIGNATURE = /^t=(\d+)((?:,v1=[0-9a-f]{64})+)$/;
const SIGNATURE_V2 = /^t=(\d+)((?:,v2=[0-9a-f]{64})+)$/;

/**
 * @deprecated Use {@link verifyWebhookV2}: v1 covers only the timestamp and the body, so a captured
 * delivery verifies again under another execution id, at another URL or with another method. Kairos
 * sends X-Kairos-Signature until version 0.3.0.
 *
 * Checks an incoming request's `X-Kairos-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`
 * against the tenant's webhook secret (from rotateWebhookSecret), or any of a list of secrets (during
 * a rotation's grace: `[newSecret, oldSecret]`). `rawBody` must be the body exactly as received,
 * before any JSON parsing. True only for a well-formed header whose timestamp is within the
 * tolerance and one of whose signatures (the header has one per secret Kairos signs with) matches
 * one of the secrets (compared in constant time).
 *
 * `header` takes the header as `node:http` gives it (`request.headers['x-kairos-signature']`, typed
 * `string | string[] | undefined`) or as fetch's `Headers.get` does (`string | null`). Kairos sends
 * one signature, so several values (an array) are refused like a missing one.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  header: string | readonly string[] | null | undefined,
  secret: WebhookSecrets,
  options: VerifyWebhookOptions = {},
): Promise<boolean> {
  const secrets = secretList(secret);
  if (typeof header !== 'string') return false;
  const match = SIGNATURE.exec(header);
  if (!match) return false;
  const [, timestamp, signatures] = match as unknown as [string, string, string];
  return signedWith(secrets, timestamp, signatures.split(',v1=').slice(1), `${timestamp}.`, rawBody, options);
}

/**
 * A request's headers, as `node:http` gives them (`request.headers`, names in lower case) or as a
 * fetch `Headers`.
 */
export type WebhookHeaders = { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;

export type VerifyWebhookV2Input = VerifyWebhookOptions & {
  /** The tenant's webhook secret (from rotateWebhookSecret), or during a rotation's grace `[newSecret, oldSecret]`. */
  secret: WebhookSecrets;
  /** The body exactly as received, before any JSON parsing (empty for GET and DELETE). */
  body: string | Uint8Array;
  /** The method of the request as received (`request.method`). */
  method: string;
  /**
   * The job's target URL exactly as Kairos shows it (`target.http.url`): behind a proxy, the public
   * URL the job names, not one rebuilt from the request, which the proxy may have rewritten.
   */
  url: string;
} & (
    | {
        /** The request's headers: X-Kairos-Signature-V2, X-Kairos-Execution-Id and Idempotency-Key are read from them. */
        headers: WebhookHeaders;
        signatureHeader?: never;
        executionId?: never;
      }
    | {
        headers?: never;
        /** The X-Kairos-Signature-V2 header's value. */
        signatureHeader: string | readonly string[] | null | undefined;
        /** The X-Kairos-Execution-Id header's value: the id to deduplicate on once verified. */
        executionId: string | readonly string[] | null | undefined;
      }
  );

/**
 * Checks an incoming request's `X-Kairos-Signature-V2: t=<unix seconds>,v2=<hex HMAC-SHA256 of
 * "v2\n<t>\n<execution id>\n<METHOD>\n<url>\n<body>">` against the tenant's webhook secret, or any of
 * a list of secrets (during a rotation's grace: `[newSecret, oldSecret]`): true only for a
 * well-formed header whose timestamp is within the tolerance and one of whose signatures (the header
 * has one per secret Kairos signs with, `t=..,v2=<new>,v2=<old>` during a grace) matches this
 * execution id, method, URL and body with one of the secrets (compared in constant time). A replay of a captured delivery
 * under another execution id, to another URL or with another method is refused, so the execution id
 * is then safe to deduplicate on. Given `headers`, an Idempotency-Key that differs from
 * X-Kairos-Execution-Id is refused too (Kairos sends the same id in both).
 *
 * A header with several values (node:http's array form) is refused like a missing one.
 */
export async function verifyWebhookV2(input: VerifyWebhookV2Input): Promise<boolean> {
  const secrets = secretList(input.secret);
  let header: unknown = input.signatureHeader;
  let executionId: unknown = input.executionId;
  if (input.headers) {
    header = headerValue(input.headers, 'x-kairos-signature-v2');
    executionId = headerValue(input.headers, 'x-kairos-execution-id');
    const idempotencyKey = headerValue(input.headers, 'idempotency-key');
    if (idempotencyKey !== undefined && idempotencyKey !== null && idempotencyKey !== executionId) return false;
  }
  if (typeof header !== 'string' || typeof executionId !== 'string') return false;
  const match = SIGNATURE_V2.exec(header);
  if (!match) return false;
  const [, timestamp, signatures] = match as unknown as [string, string, string];
  const prefix = `v2\n${timestamp}\n${executionId}\n${input.method}\n${input.url}\n`;
  return signedWith(secrets, timestamp, signatures.split(',v2=').slice(1), prefix, input.body, input);
}

/** The secrets as a list; an empty list verifies nothing, as in the Go SDK. */
function secretList(secret: WebhookSecrets): readonly string[] {
  return typeof secret === 'string' ? [secret] : secret;
}

function headerValue(headers: WebhookHeaders, name: string): unknown {
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(name);
  const record = headers as Readonly<Record<string, unknown>>;
  if (name in record) return record[name];
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : record[key];
}

/**
 * True when `timestamp` is within the tolerance of now and one of `signatures` (hex) is the HMAC of
 * `prefix` followed by the raw body with one of `secrets`.
 */
async function signedWith(
  secrets: readonly string[],
  timestamp: string,
  signatures: readonly string[],
  prefix: string,
  rawBody: string | Uint8Array,
  options: VerifyWebhookOptions,
): Promise<boolean> {
  const now = options.now ?? Date.now();
  if (secrets.length === 0 || Math.abs(now / 1000 - Number(timestamp)) > (options.toleranceSeconds ?? 300)) return false;
  const encoder = new TextEncoder();
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const head = encoder.encode(prefix);
  const message = new Uint8Array(head.length + body.length);
  message.set(head);
  message.set(body, head.length);
  const given = signatures.map(fromHex);
  let matched = false;
  for (const secret of secrets) {
    const expected = new Uint8Array(await (options.hmac ?? webCryptoHmac)(encoder.encode(secret), message));
    // Every pair is compared, so the time taken does not tell which secret or signature matched.
    for (const signature of given) matched = constantTimeEqual(expected, signature) || matched;
  }
  return matched;
}

async function webCryptoHmac(key: Uint8Array, message: Uint8Array): Promise<ArrayBuffer> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error('verifyWebhook and verifyWebhookV2 need WebCrypto (crypto.subtle) or an hmac option');
  const cryptoKey = await subtle.importKey('raw', key as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return subtle.sign('HMAC', cryptoKey, message as BufferSource);
}

function fromHex(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** Compares in time independent of where the bytes differ (WebCrypto has no timingSafeEqual; node:crypto is not everywhere). */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
