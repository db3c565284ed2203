import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MongoClient, ObjectId, type Db } from 'mongodb';
import { deleteOnce } from '../../src/store/deleteOnce.js';
import { MONGO_URL } from '../support/env.js';
import { uniqueName } from '../support/harness.js';

describe('deleteOnce', () => {
  let mongo: MongoClient;
  let db: Db;

  beforeAll(async () => {
    mongo = await MongoClient.connect(MONGO_URL);
    db = mongo.db(uniqueName('deleteonce'));
  });
  afterAll(async () => {
    await db?.dropDatabase();
    await mongo?.close();
  });

  it('answers one of several concurrent deletes of a document with it, the others with null', async () => {
    const things = db.collection<{ _id: ObjectId; tenantId: string; name: string }>('things');
    for (let round = 0; round < 5; round++) {
      const _id = new ObjectId();
      await things.insertOne({ _id, tenantId: 't', name: `n${round}` });
      const answers = await Promise.all(Array.from({ length: 4 }, () => deleteOnce(things, { _id, tenantId: 't' })));
      expect(answers.filter((a) => a !== null).map((a) => a?.name)).toEqual([`n${round}`]);
      expect(await things.countDocuments({ _id })).toBe(0);
    }
  });

  it('answers null for a document of another tenant, and leaves it', async () => {
    const things = db.collection<{ _id: ObjectId; tenantId: string }>('things');
    const _id = new ObjectId();
    await things.insertOne({ _id, tenantId: 'a' });
    expect(await deleteOnce(things, { _id, tenantId: 'b' })).toBeNull();
    expect(await things.countDocuments({ _id })).toBe(1);
  });
});
