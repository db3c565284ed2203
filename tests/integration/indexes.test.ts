import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MongoClient, ObjectId } from 'mongodb';
import { INDEXES, ensureIndexes } from '../../src/store/indexes.js';
import { MONGO_URL } from '../support/env.js';
import { uniqueName } from '../support/harness.js';

const COLLECTIONS = ['jobs', 'executions', 'apiKeys'] as const;

describe('ensureIndexes', () => {
  let client: MongoClient;
  const names: string[] = [];

  beforeAll(async () => {
    client = await MongoClient.connect(MONGO_URL);
  });
  afterAll(async () => {
    for (const name of names) await client.db(name).dropDatabase();
    await client?.close();
  });

  async function indexNames(rangeIndexes?: boolean): Promise<Record<string, string[]>> {
    const name = uniqueName('indexes');
    names.push(name);
    const db = client.db(name);
    await ensureIndexes(db, rangeIndexes === undefined ? {} : { rangeIndexes });
    const out: Record<string, string[]> = {};
    for (const c of COLLECTIONS)
      out[c] = (await db.collection(c).indexes())
        .map((i) => i.name!)
        .filter((n) => n !== '_id_')
        .sort();
    return out;
  }

  it('creates every index by default, and only the unique ones without the range indexes (FerretDB)', async () => {
    const all = Object.fromEntries(COLLECTIONS.map((c) => [c, INDEXES[c].map((i) => i.name!).sort()]));
    const unique = Object.fromEntries(
      COLLECTIONS.map((c) => [
        c,
        INDEXES[c]
          .filter((i) => i.unique)
          .map((i) => i.name!)
          .sort(),
      ]),
    );
    expect(await indexNames()).toEqual(all);
    expect(await indexNames(false)).toEqual(unique);
    // The unique ones are what keeps an occurrence, an idempotency key, an external id and an API key single.
    expect(unique).toEqual({ jobs: ['tenant_external', 'tenant_idempotency'], executions: ['occurrence'], apiKeys: ['secret_hash'] });
  });

  it('gives jobs stored before external ids their own key first, so the unique index builds', async () => {
    const name = uniqueName('indexes_old');
    names.push(name);
    const jobs = client.db(name).collection('jobs');
    // Two jobs of one tenant without externalKey: MongoDB would count them as one duplicate null.
    const old = [new ObjectId(), new ObjectId()];
    await jobs.insertMany(old.map((_id) => ({ _id, tenantId: 't', idempotencyKey: `auto:${_id.toHexString()}` })));
    await ensureIndexes(client.db(name));
    expect((await jobs.find({}, { sort: { _id: 1 } }).toArray()).map((job) => job.externalKey)).toEqual(
      old.map((id) => `auto:${id.toHexString()}`),
    );
    expect((await jobs.indexes()).map((index) => index.name)).toContain('tenant_external');
    // Run again (another process, a restart): the index is there, nothing to fill.
    await ensureIndexes(client.db(name));
  });
});
