import { MongoServerError, type Db, type ObjectId } from 'mongodb';
import { BULK_CHUNK_ITEMS, chunkId, type BulkItem, type BulkItemChunkDoc, type BulkOperationDoc } from '../domain/bulkOperation.js';
import { collections, type Collections } from './collections.js';

const DUPLICATE_KEY = 11000;

/** A tenant's bulk operations, as the API creates and reads them. Every query carries the tenant. */
export class BulkOperationStore {
  private readonly c: Collections;

  constructor(
    db: Db,
    readonly tenantId: string,
  ) {
    this.c = collections(db);
  }

  async findById(id: ObjectId): Promise<BulkOperationDoc | null> {
    return this.c.bulkOperations.findOne({ _id: id, tenantId: this.tenantId });
  }

  async findByOperationId(operationId: string): Promise<BulkOperationDoc | null> {
    return this.c.bulkOperations.findOne({ tenantId: this.tenantId, operationId });
  }

  /**
   * Writes `operation` with its snapshot of `items`: the items first (insertMany, in chunks), then
   * the operation, so a runner never finds a RUNNING operation without its items. When another
   * request with the same operationId won the race, its items are dropped again and that operation
   * is returned with `created: false`.
   */
  async create(
    operation: Omit<BulkOperationDoc, 'tenantId' | 'chunks'>,
    items: readonly BulkItem[],
  ): Promise<{ operation: BulkOperationDoc; created: boolean }> {
    const chunks: BulkItemChunkDoc[] = [];
    for (let i = 0; i < items.length; i += BULK_CHUNK_ITEMS) {
      const n = chunks.length;
      chunks.push({
        _id: chunkId(operation._id, n),
        tenantId: this.tenantId,
        operation: operation._id,
        items: items.slice(i, i + BULK_CHUNK_ITEMS),
      });
    }
    if (chunks.length > 0) await this.c.bulkOperationItems.insertMany(chunks);
    const doc: BulkOperationDoc = { ...operation, tenantId: this.tenantId, chunks: chunks.length };
    try {
      await this.c.bulkOperations.insertOne(doc);
      return { operation: doc, created: true };
    } catch (error) {
      if (!(error instanceof MongoServerError) || error.code !== DUPLICATE_KEY) throw error;
      await this.c.bulkOperationItems.deleteMany({ tenantId: this.tenantId, operation: operation._id });
      const existing = await this.findByOperationId(operation.operationId);
      if (!existing) throw error;
      return { operation: existing, created: false };
    }
  }
}
