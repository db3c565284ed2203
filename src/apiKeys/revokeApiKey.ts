import type { ObjectId } from 'mongodb';
import { NotFoundError } from '../errors/index.js';
import { toGlobalId } from '../ids/globalId.js';
import type { ApiKeyRecord, ApiKeyStore } from '../store/apiKeyStore.js';

/**
 * Revokes a key of the caller's tenant by deleting it: keys are looked up on every request, so the
 * next request with its secret is UNAUTHENTICATED. Another tenant's key is NOT_FOUND, like a missing one.
 */
export async function revokeApiKey(keys: ApiKeyStore, id: ObjectId): Promise<ApiKeyRecord> {
  const revoked = await keys.delete(id);
  if (!revoked) throw new NotFoundError('ApiKey', toGlobalId('ApiKey', id));
  return revoked;
}
