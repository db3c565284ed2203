import { describe, expect, it, jest } from '@jest/globals';
import { MongoServerError, type Db } from 'mongodb';
import { EXTERNAL_ID_INDEX, ensureIndexes, isShardKeyConflict } from '../../src/store/indexes.js';

/** MongoDB's refusal of a unique index that does not start with the shard key (as mongos words it). */
const shardKeyRefusal = (index: string) =>
  new MongoServerError({
    code: 67,
    codeName: 'CannotCreateIndex',
    errmsg: `cannot create unique index over { tenantId: 1, ${index}: 1 } with shard key pattern { tenantId: 1, idempotencyKey: 1 }`,
  });

/**
 * A Db whose collections hold nothing and whose createIndex throws what `failure` returns for an
 * index (nothing: it is created). Records the indexes created as `collection.index`.
 */
function fakeDb(failure: (index: string) => Error | undefined) {
  const created: string[] = [];
  const collection = (collectionName: string) => ({
    collectionName,
    indexes: () => Promise.resolve([]),
    find: () => ({ limit: () => ({ toArray: () => Promise.resolve([]) }) }),
    createIndex: (_key: unknown, options: { name: string }) => {
      const error = failure(options.name);
      if (error) return Promise.reject(error);
      created.push(`${collectionName}.${options.name}`);
      return Promise.resolve(options.name);
    },
  });
  return { db: { collection } as unknown as Db, created };
}

describe('ensureIndexes where the shard key rules out the external-id index', () => {
  it('goes on without that index alone, creating the others, and warns once saying to reshard', async () => {
    const { db, created } = fakeDb((index) => (index === EXTERNAL_ID_INDEX ? shardKeyRefusal('externalKey') : undefined));
    const warn = jest.fn();
    await ensureIndexes(db, { logger: { warn } });
    expect(created).not.toContain(`jobs.${EXTERNAL_ID_INDEX}`);
    // The indexes after it in the list are created all the same.
    expect(created).toEqual(expect.arrayContaining(['jobs.tenant_idempotency', 'jobs.tenant_labels', 'executions.occurrence']));
    expect(warn).toHaveBeenCalledTimes(1);
    const [message, fields] = warn.mock.calls[0] as [string, Record<string, unknown>];
    expect(message).toContain('{ tenantId: 1 }');
    expect(message).toContain('docs/operating.md');
    expect(fields).toMatchObject({ collection: 'jobs', index: EXTERNAL_ID_INDEX });
  });

  it('still fails the start for the same refusal of an index the api cannot do without', async () => {
    const { db } = fakeDb((index) => (index === 'tenant_idempotency' ? shardKeyRefusal('idempotencyKey') : undefined));
    await expect(ensureIndexes(db, { logger: { warn: jest.fn() } })).rejects.toThrow('shard key pattern');
  });

  it('still fails the start for any other failure to build the external-id index', async () => {
    const tooMany = new MongoServerError({
      code: 67,
      codeName: 'CannotCreateIndex',
      errmsg: 'add index fails, too many indexes for kairos.jobs',
    });
    const { db } = fakeDb((index) => (index === EXTERNAL_ID_INDEX ? tooMany : undefined));
    const warn = jest.fn();
    await expect(ensureIndexes(db, { logger: { warn } })).rejects.toBe(tooMany);
    expect(warn).not.toHaveBeenCalled();
    const duplicates = new MongoServerError({ code: 11000, codeName: 'DuplicateKey', errmsg: 'E11000 duplicate key error' });
    await expect(ensureIndexes(fakeDb((index) => (index === EXTERNAL_ID_INDEX ? duplicates : undefined)).db)).rejects.toBe(duplicates);
  });
});

describe('isShardKeyConflict', () => {
  it('is MongoDB’s CannotCreateIndex naming the shard key pattern, as older and newer servers word it', () => {
    expect(isShardKeyConflict(shardKeyRefusal('externalKey'))).toBe(true);
    const newer = new MongoServerError({
      code: 67,
      codeName: 'CannotCreateIndex',
      errmsg:
        "cannot create index with 'unique' or 'prepareUnique' option over { tenantId: 1, externalKey: 1 } with shard key pattern { tenantId: 1, idempotencyKey: 1 }",
    });
    expect(isShardKeyConflict(newer)).toBe(true);
  });

  it('is false for another code, another CannotCreateIndex, or an error that is not the server’s', () => {
    expect(isShardKeyConflict(new MongoServerError({ code: 85, codeName: 'IndexOptionsConflict', errmsg: 'shard key' }))).toBe(false);
    expect(isShardKeyConflict(new MongoServerError({ code: 67, codeName: 'CannotCreateIndex', errmsg: 'too many indexes' }))).toBe(false);
    expect(isShardKeyConflict(new Error('cannot create unique index over x with shard key pattern y'))).toBe(false);
  });
});
