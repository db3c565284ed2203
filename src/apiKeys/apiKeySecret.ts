import { createHash, randomBytes } from 'node:crypto';

/** Every API key starts with this, which is how a bearer token is told apart from a JWT. */
export const API_KEY_PREFIX = 'kairos_';
const SECRET_BYTES = 32;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Base62 digits of a SECRET_BYTES number: ceil(256 / log2(62)) = 43. */
const BODY_LENGTH = Math.ceil((SECRET_BYTES * 8) / Math.log2(62));
const SHAPE = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH}}$`);
/** How many characters of the secret `prefix` keeps: `kairos_` and 6 more. */
const SHOWN_LENGTH = API_KEY_PREFIX.length + 6;

/** Base62 of `bytes` as one big number, left-padded with zeros to BODY_LENGTH digits. */
function base62(bytes: Buffer): string {
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let digits = '';
  while (n > 0n) {
    digits = ALPHABET[Number(n % 62n)] + digits;
    n /= 62n;
  }
  return digits.padStart(BODY_LENGTH, '0');
}

/** A fresh secret: `kairos_` + base62 of 32 random bytes. `random` is injectable for tests. */
export function newApiKeySecret(random: (size: number) => Buffer = randomBytes): string {
  return API_KEY_PREFIX + base62(random(SECRET_BYTES));
}

/** True for a token that claims to be an API key (it is then never tried as a JWT). */
export function isApiKeyToken(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX);
}

/** True when the token has the exact shape of a secret newApiKeySecret makes (checked before any lookup). */
export function hasApiKeyShape(token: string): boolean {
  return SHAPE.test(token);
}

/** What is stored and looked up: the hex SHA-256 (enough for a 256-bit random secret; no salt needed). */
export function hashApiKeySecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** The part of the secret that may be shown again, to recognise the key. */
export function shownPrefix(secret: string): string {
  return secret.slice(0, SHOWN_LENGTH);
}
