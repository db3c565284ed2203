import type { Credential } from '../domain/identity.js';
import { UnauthenticatedError } from '../errors/index.js';
import { toGlobalId } from '../ids/globalId.js';
import type { ApiKeyLookup } from '../store/apiKeyLookup.js';
import { hasApiKeyShape, hashApiKeySecret } from './apiKeySecret.js';

/** lastUsedAt is written at most this often per key, not on every request. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Resolves an API key secret to its tenant and role. Looked up on every call (no cache), so a
 * revoked key stops working at the next request. Any failure is UNAUTHENTICATED without the secret.
 */
export async function authenticateApiKey(lookup: ApiKeyLookup, secret: string, now: Date): Promise<Credential> {
  const key = hasApiKeyShape(secret) ? await lookup.findBySecretHash(hashApiKeySecret(secret)) : null;
  if (!key) throw new UnauthenticatedError('The API key is invalid or has been revoked');
  const notBefore = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
  if (!key.lastUsedAt || key.lastUsedAt < notBefore) await lookup.touch(key._id, now, notBefore);
  const apiKeyId = toGlobalId('ApiKey', key._id);
  return {
    identity: { tenantId: key.tenantId, subject: `apiKey:${apiKeyId}`, role: key.role, apiKeyId },
    validUntil: null,
  };
}
