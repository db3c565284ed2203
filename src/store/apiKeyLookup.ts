import type { Db, ObjectId } from 'mongodb';
import type { ApiKeyDoc } from '../domain/apiKey.js';
import { collections, type Collections } from './collections.js';

/**
 * Finds API keys by the hash of their secret, before any tenant is known: the key is what names
 * the tenant. The only query on `apiKeys` without a tenant filter.
 */
export class ApiKeyLookup {
  private readonly c: Collections;

  constructor(db: Db) {
    this.c = collections(db);
  }

  async findBySecretHash(secretHash: string): Promise<Pick<ApiKeyDoc, '_id' | 'tenantId' | 'role' | 'lastUsedAt'> | null> {
    return this.c.apiKeys.findOne({ secretHash }, { projection: { _id: 1, tenantId: 1, role: 1, lastUsedAt: 1 } });
  }

  /** Sets lastUsedAt to `now` unless it is already at or after `notBefore` (saves a write per request). */
  async touch(id: ObjectId, now: Date, notBefore: Date): Promise<void> {
    await this.c.apiKeys.updateOne(
      { _id: id, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lt: notBefore } }] },
      { $set: { lastUsedAt: now } },
    );
  }
}
