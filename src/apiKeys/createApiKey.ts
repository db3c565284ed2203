import { ObjectId } from 'mongodb';
import type { RoleName } from '../domain/role.js';
import { parseName } from '../jobs/parseJobInput.js';
import type { ApiKeyRecord, ApiKeyStore } from '../store/apiKeyStore.js';
import { hashApiKeySecret, newApiKeySecret, shownPrefix } from './apiKeySecret.js';
import type { ChangeRecorder } from '../changes/changeLog.js';
import { toGlobalId } from '../ids/globalId.js';

/**
 * Creates an API key of the caller's tenant with `role`. Returns the secret, which is not stored
 * (only its hash is) and so can never be shown again. The change record names the key and its role,
 * never its secret, hash or prefix.
 */
export async function createApiKey(
  { keys, changes }: { keys: ApiKeyStore; changes: ChangeRecorder },
  input: { name: string; role: RoleName },
  now: Date,
  newSecret: () => string = newApiKeySecret,
): Promise<{ apiKey: ApiKeyRecord; secret: string }> {
  // Named like jobs: trimmed, not empty, at most 200 characters.
  const name = parseName(input.name);
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
  await changes.record({
    action: 'CREATE_API_KEY',
    target: { type: 'API_KEY', id: toGlobalId('ApiKey', apiKey._id) },
    jobId: null,
    before: null,
    after: { name: apiKey.name, role: apiKey.role },
    at: now,
  });
  return { apiKey, secret };
}
