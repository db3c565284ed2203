import { randomBytes } from 'node:crypto';

/** A fresh webhook signing secret: 32 random bytes, base64url. */
export function newWebhookSecret(): string {
  return randomBytes(32).toString('base64url');
}
