import { ObjectId } from 'mongodb';
import type { RoleName } from '../auth/identity.js';
import { BadUserInputError } from '../errors/index.js';
import type { ApiKeyRecord, ApiKeyStore } from '../store/apiKeyStore.js';
import { hashApiKeySecret, newApiKeySecret, shownPrefix } from './apiKeySecret.js';

/** Longest accepted key name, as for job names. */
export const MAX_API_KEY_NAME_LENGTH = 200;

/**
 * Creates an API key of the caller's tenant with `role`. Returns the secret, which is not stored
 * (only its hash is) and so can never be shown again.
 */
export async function createApiKey(
  keys: ApiKeyStore,
  input: { name: string; role: RoleName },
  now: Date,
  newSecret: () => string = newApiKeySecret,
): Promise<{ apiKey: ApiKeyRecord; secret: string }> {
  const name = input.name.trim();
  if (name.length === 0) throw new BadUserInputError('The API key name must not be empty', 'name');
  if (name.length > MAX_API_KEY_NAME_LENGTH) {
    throw new BadUserInputError(`The API key name must be at most ${MAX_API_KEY_NAME_LENGTH} characters`, 'name');
  }
  const secret = newSecret();
  const apiKey = await keys.insert({
    _id: new ObjectId(),
    name,
    role: input.role,
    prefix: shownPrefix(secret),
    secretHash: hashApiKeySecret(secret),
    createdAt: now,
    lastUsedAt: null,
  });
  return { apiKey, secret };
}
