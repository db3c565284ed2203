// Covers: src/jobs/createJob.ts, src/jobs/updateJob.ts, src/jobs/upsertJob.ts
// External ids stay single where MongoDB cannot have the unique index tenant_external (jobs sharded by
// { tenantId: 1, idempotencyKey: 1 }): the api's check-then-write under the tenant's create lock.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MongoClient } from 'mongodb';
import { EXTERNAL_ID_INDEX } from '../../src/store/indexes.js';
import { MONGO_URL } from '../support/env.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id externalId } } }`;
const UPDATE = `mutation($input: UpdateJobInput!) { updateJob(input: $input) { job { id externalId } } }`;

describe('external ids without the unique index', () => {
  let kairos: TestKairos;
  let client: MongoClient;
  const tenant = uniqueName('extnoindex');
  const token = tokenFor(tenant, 'member');

  beforeAll(async () => {
    kairos = await startTestKairos('extnoindex', { roles: ['api'] });
    client = await MongoClient.connect(MONGO_URL);
    // What a deployment whose shard key rules the index out runs with (ensureIndexes went on without it).
    await client.db(kairos.dbName).collection('jobs').dropIndex(EXTERNAL_ID_INDEX);
  });
  afterAll(async () => {
    await client?.close();
    await kairos?.stop();
  });

  const input = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    schedule: { intervalSeconds: 31_536_000, startAt: new Date(Date.now() + 31_536_000_000).toISOString() },
    target: { handler: 'noop' },
    ...extra,
  });
  const holders = (externalId: string) =>
    client
      .db(kairos.dbName)
      .collection('jobs')
      .countDocuments({ tenantId: tenant, externalKey: `ext:${externalId}` });

  it('the index is really gone', async () => {
    const names = (await client.db(kairos.dbName).collection('jobs').indexes()).map((index) => index.name);
    expect(names).not.toContain(EXTERNAL_ID_INDEX);
  });

  it('two concurrent creates with one external id make one job and one CONFLICT naming it', async () => {
    const answers = await Promise.all(
      ['first', 'second'].map((name) => gql(kairos.url, token, CREATE, { input: input(name, { externalId: 'crm-1' }) })),
    );
    const created = answers.filter((answer) => !answer.errors);
    const refused = answers.filter((answer) => answer.errors);
    expect(created).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0].errors?.[0].extensions?.code).toBe('CONFLICT');
    expect(JSON.stringify(refused[0].errors?.[0])).toContain((created[0].data as any).createJob.job.id);
    expect(await holders('crm-1')).toBe(1);
  });

  it('a repeated create with the same idempotency key answers with its job, not CONFLICT', async () => {
    const once = input('keyed', { externalId: 'crm-keyed', idempotencyKey: 'k-1' });
    const first = (await gqlOk(kairos.url, token, CREATE, { input: once })).createJob.job;
    const again = (await gqlOk(kairos.url, token, CREATE, { input: once })).createJob.job;
    expect(again.id).toBe(first.id);
  });

  it('concurrent upserts of a new external id make one job', async () => {
    const answers = await Promise.all(
      [0, 1, 2].map((i) => gqlOk(kairos.url, token, CREATE, { input: input(`upsert ${i}`, { externalId: 'crm-up', upsert: true }) })),
    );
    expect(new Set(answers.map((answer) => answer.createJob.job.id)).size).toBe(1);
    expect(await holders('crm-up')).toBe(1);
  });

  it('two jobs concurrently given one external id by updateJob: one takes it, the other is CONFLICT', async () => {
    const jobs = await Promise.all(
      ['a', 'b'].map(async (name) => (await gqlOk(kairos.url, token, CREATE, { input: input(name) })).createJob.job),
    );
    const answers = await Promise.all(
      jobs.map((job: { id: string }) => gql(kairos.url, token, UPDATE, { input: { id: job.id, externalId: 'crm-moved' } })),
    );
    expect(answers.filter((answer) => !answer.errors)).toHaveLength(1);
    expect(answers.filter((answer) => answer.errors?.[0].extensions?.code === 'CONFLICT')).toHaveLength(1);
    expect(await holders('crm-moved')).toBe(1);
  });

  it('an update and a create racing on one external id leave one holder', async () => {
    const job = (await gqlOk(kairos.url, token, CREATE, { input: input('to name') })).createJob.job;
    const answers = await Promise.all([
      gql(kairos.url, token, UPDATE, { input: { id: job.id, externalId: 'crm-mixed' } }),
      gql(kairos.url, token, CREATE, { input: input('named', { externalId: 'crm-mixed' }) }),
    ]);
    expect(answers.filter((answer) => !answer.errors)).toHaveLength(1);
    expect(await holders('crm-mixed')).toBe(1);
  });
});
