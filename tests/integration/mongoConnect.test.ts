import { describe, expect, it } from '@jest/globals';
import { MongoClient } from 'mongodb';
import { connectMongo, FERRETDB_MAX_POOL_SIZE, isFerretDb, urlSetsPoolSize } from '../../src/store/mongo.js';
import { MONGO_URL } from '../support/env.js';
import { mongoUrlFor } from '../support/processes.js';

/** MONGO_URL without any maxPoolSize, as a user would set it by hand. */
const bareUrl = MONGO_URL.replace(/([?&])maxPoolSize=\d+&?/i, '$1').replace(/[?&]$/, '');

describe('connectMongo', () => {
  it('recognises FerretDB by its buildInfo and a URL that sets its own pool size', () => {
    expect(isFerretDb({ version: '7.0.42', ferretdbVersion: 'v1.24.2', ok: 1 })).toBe(true);
    expect(isFerretDb({ version: '7.0.14', gitVersion: 'abc', modules: [], ok: 1 })).toBe(false);
    expect(urlSetsPoolSize('mongodb://h/db?maxPoolSize=5')).toBe(true);
    expect(urlSetsPoolSize('mongodb://h/db?w=1&maxpoolsize=5')).toBe(true);
    expect(urlSetsPoolSize('mongodb://h/db?minPoolSize=5')).toBe(false);
  });

  it('caps the pool against FerretDB when the URL sets none, and keeps a pool size the URL sets', async () => {
    // The suite normally runs against FerretDB (scripts/services.sh); asked directly, so that a run
    // against real MongoDB checks that the driver's default pool (100) stays.
    const probe = await new MongoClient(bareUrl).connect();
    const ferretDb = isFerretDb(await probe.db('admin').command({ buildInfo: 1 }));
    await probe.close();
    const detected = await connectMongo(mongoUrlFor(bareUrl, 'kairos_connect_probe'));
    try {
      expect(detected.ferretDb).toBe(ferretDb);
      expect(detected.client.options.maxPoolSize).toBe(ferretDb ? FERRETDB_MAX_POOL_SIZE : 100);
      expect(detected.db.databaseName).toBe('kairos_connect_probe');
    } finally {
      await detected.client.close();
    }
    const own = await connectMongo(
      `${mongoUrlFor(bareUrl, 'kairos_connect_probe')}${bareUrl.includes('?') ? '&' : '?'}maxPoolSize=7&w=1&readPreference=secondaryPreferred`,
    );
    try {
      expect(own.client.options.maxPoolSize).toBe(7);
      // Majority writes and primary reads whatever the URL asks (docs/operating.md, "MongoDB: replica set and sharding"), and the server takes them.
      expect(own.db.writeConcern).toMatchObject({ w: 'majority' });
      expect(own.db.readPreference.mode).toBe('primary');
      await own.db.collection('probe').insertOne({ at: new Date() });
      expect(await own.db.collection('probe').countDocuments()).toBe(1);
      await own.db.dropDatabase();
    } finally {
      await own.client.close();
    }
  });
});
