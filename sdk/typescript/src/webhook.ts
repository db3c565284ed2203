/** Computes HMAC-SHA256(key, message). Pass one where WebCrypto is missing; the default uses `crypto.subtle`. */
export type Hmac = (key: Uint8Array, message: Uint8Array) => Uint8Array | ArrayBuffer | Promise<Uint8Array | ArrayBuffer>;

export interface VerifyWebhookOptions {
  /** Largest accepted distance between the signature's timestamp and now, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** Now, in milliseconds since the epoch. Default Date.now(). */
  now?: number;
  hmac?: Hmac;
}

const SIGNATURE = /^t=(\d+),v1=([0-9a-f]{64})$/;

/**
 * Checks an incoming request's `X-Kairos-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`
 * against the tenant's webhook secret (from rotateWebhookSecret). `rawBody` must be the body exactly
 * as received, before any JSON parsing. True only for a well-formed header whose timestamp is
 * within the tolerance and whose signature matches (compared in constant time).
 *
 * `header` takes the header as `node:http` gives it (`request.headers['x-kairos-signature']`, typed
 * `string | string[] | undefined`) or as fetch's `Headers.get` does (`string | null`). Kairos sends
 * one signature, so several values (an array) are refused like a missing one.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  header: string | readonly string[] | null | undefined,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<boolean> {
  if (typeof header !== 'string') return false;
  const match = SIGNATURE.exec(header);
  if (!match) return false;
  const [, timestamp, hex] = match as unknown as [string, string, string];
  const now = options.now ?? Date.now();
  if (Math.abs(now / 1000 - Number(timestamp)) > (options.toleranceSeconds ?? 300)) return false;
  const encoder = new TextEncoder();
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const prefix = encoder.encode(`${timestamp}.`);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix);
  message.set(body, prefix.length);
  const expected = new Uint8Array(await (options.hmac ?? webCryptoHmac)(encoder.encode(secret), message));
  return constantTimeEqual(expected, fromHex(hex));
}

async function webCryptoHmac(key: Uint8Array, message: Uint8Array): Promise<ArrayBuffer> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error('verifyWebhook needs WebCrypto (crypto.subtle) or an hmac option');
  const cryptoKey = await subtle.importKey('raw', key as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return subtle.sign('HMAC', cryptoKey, message as BufferSource);
}

function fromHex(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
