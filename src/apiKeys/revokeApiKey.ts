import type { ObjectId } from 'mongodb';
import { NotFoundError } from '../errors/index.js';
import { toGlobalId } from '../ids/globalId.js';
import type { ApiKeyRecord, ApiKeyStore } from '../store/apiKeyStore.js';
import type { ChangeRecorder } from '../changes/changeLog.js';

/**
 * Revokes a key of the caller's tenant by deleting it: keys are looked up on every request, so the
 * next request with its secret is UNAUTHENTICATED. Another tenant's key is NOT_FOUND, like a missing one.
 */
export async function revokeApiKey(
  { keys, changes }: { keys: ApiKeyStore; changes: ChangeRecorder },
  id: ObjectId,
  now: Date,
): Promise<ApiKeyRecord> {
  const revoked = await keys.delete(id);
  if (!revoked) throw new NotFoundError('ApiKey', toGlobalId('ApiKey', id));
  await changes.record({
    action: 'REVOKE_API_KEY',
    target: { type: 'API_KEY', id: toGlobalId('ApiKey', id) },
    jobId: null,
    before: { name: revoked.name, role: revoked.role },
    after: null,
    at: now,
  });
  return revoked;
}
