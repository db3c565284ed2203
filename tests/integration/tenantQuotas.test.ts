// Covers: src/quotas/sharedReads.ts, src/store/collections.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MongoClient, type CommandStartedEvent, type Db } from 'mongodb';
import type { TenantDoc } from '../../src/domain/tenant.js';
import { TenantQuotas } from '../../src/quotas/tenantQuotas.js';
import { TenantStore } from '../../src/store/tenantStore.js';
import { MONGO_URL } from '../support/env.js';
import { uniqueName } from '../support/harness.js';

const DEFAULTS = {
  maxJobs: 1000,
  maxConcurrentExecutions: 100,
  maxExecutionsPerMinute: 600,
  maxWaitingExecutions: 1000,
  executionRetentionDays: 30,
  maxSocketsPerCredential: 20,
  maxSockets: 100,
  maxSubscriptionsPerSocket: 50,
  maxSubscriptions: 200,
};

/** The quota cache the hot paths read (every mutation, createJob, every attempt), on the real MongoDB-wire server with a stepped clock. */
describe('TenantQuotas', () => {
  let client: MongoClient;
  let db: Db;
  const name = uniqueName('quotacache');
  const tenantReads: string[] = [];
  let at = new Date('2026-12-06T12:00:00Z');
  let quotas: TenantQuotas;

  beforeAll(async () => {
    client = await MongoClient.connect(MONGO_URL, { monitorCommands: true });
    client.on('commandStarted', (e: CommandStartedEvent) => {
      if (e.commandName === 'find' && e.command.find === 'tenants') tenantReads.push(String((e.command.filter as { _id: string })._id));
    });
    db = client.db(name);
    quotas = new TenantQuotas(new TenantStore(db, DEFAULTS), () => at, 5000);
  });
  afterAll(async () => {
    await db?.dropDatabase();
    await client?.close();
  });

  it('reads a tenant once for requests that miss the cache together, creating it on first use', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => quotas.of('together')));
    expect(answers.every((q) => q.maxJobs === 1000)).toBe(true);
    // ensure() reads, upserts the new tenant and reads it back: one such sequence, not eight.
    expect(tenantReads.filter((t) => t === 'together')).toHaveLength(2);
    expect(await db.collection<TenantDoc>('tenants').countDocuments({ _id: 'together' })).toBe(1);
  });

  it('serves a quota from memory until cacheMs has passed, then reads the change', async () => {
    await quotas.of('changing');
    await db.collection<TenantDoc>('tenants').updateOne({ _id: 'changing' }, { $set: { maxJobs: 3 } });
    const readsBefore = tenantReads.length;
    at = new Date(at.getTime() + 4999);
    expect((await quotas.of('changing')).maxJobs).toBe(1000);
    expect(tenantReads.length).toBe(readsBefore);
    at = new Date(at.getTime() + 1);
    expect((await quotas.of('changing')).maxJobs).toBe(3);
    expect(tenantReads.length).toBe(readsBefore + 1);
  });
});
