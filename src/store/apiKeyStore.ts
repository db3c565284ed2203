import type { Db, ObjectId } from 'mongodb';
import type { ApiKeyDoc } from '../domain/apiKey.js';
import { collections, type Collections } from './collections.js';
import { deleteOnce } from './deleteOnce.js';

/** The fields of a key that may leave the store: everything but the secret's hash. */
export type ApiKeyRecord = Omit<ApiKeyDoc, 'secretHash'>;

const WITHOUT_HASH = { projection: { secretHash: 0 } } as const;

/**
 * A tenant's API keys. Built per request with the tenant from the token; every query and insert
 * carries that tenant, so another tenant's key ids behave like ids that do not exist.
 */
export class ApiKeyStore {
  private readonly c: Collections;

  constructor(
    db: Db,
    readonly tenantId: string,
  ) {
    this.c = collections(db);
  }

  async insert(key: Omit<ApiKeyDoc, 'tenantId'>): Promise<ApiKeyRecord> {
    const doc: ApiKeyDoc = { ...key, tenantId: this.tenantId };
    await this.c.apiKeys.insertOne(doc);
    return withoutHash(doc);
  }

  /** Newest first. */
  async list(): Promise<ApiKeyRecord[]> {
    return this.c.apiKeys.find<ApiKeyRecord>({ tenantId: this.tenantId }, WITHOUT_HASH).sort({ createdAt: -1, _id: -1 }).toArray();
  }

  /** Deletes the key (its hash goes with it); returns it as it was, or null when the tenant has no such key. */
  async delete(id: ObjectId): Promise<ApiKeyRecord | null> {
    const deleted = await deleteOnce(this.c.apiKeys, { _id: id, tenantId: this.tenantId });
    return deleted && withoutHash(deleted);
  }
}

function withoutHash({ secretHash: _hash, ...record }: ApiKeyDoc): ApiKeyRecord {
  return record;
}
