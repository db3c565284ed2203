// Covers: src/jobs/upsertJob.ts, src/domain/labels.ts, src/domain/externalId.ts, src/schema/label.type.ts, src/schema/label.input.ts, src/resolvers/listExecutions.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MongoClient, ObjectId } from 'mongodb';
import { LABEL_LIMITS } from '../../src/domain/labels.js';
import { JobStore } from '../../src/store/jobStore.js';
import { MONGO_URL } from '../support/env.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { waitUntil } from '../support/waitFor.js';

const JOB_FIELDS = 'id name labels { key value } externalId';
const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { ${JOB_FIELDS} } } }`;
const UPDATE = `mutation($input: UpdateJobInput!) { updateJob(input: $input) { job { ${JOB_FIELDS} } } }`;
const TRIGGER = `mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }`;
const JOBS = `query($filter: JobFilter, $first: Int, $after: String) {
  jobs(filter: $filter, first: $first, after: $after) { totalCount edges { node { ${JOB_FIELDS} } } pageInfo { hasNextPage endCursor } }
}`;
const EXECUTIONS = `query($filter: ExecutionFilter) { executions(filter: $filter, first: 100) { edges { node { id jobId } } } }`;
const JOB_EXECUTIONS = `query($id: ID!, $filter: ExecutionFilter) { job(id: $id) { executions(filter: $filter, first: 100) { edges { node { id } } } } }`;

type Labels = Record<string, string>;
const labelList = (labels: Labels) => Object.entries(labels).map(([key, value]) => ({ key, value }));

describe('labels, external ids and the filters by them', () => {
  let kairos: TestKairos;
  const tenantA = uniqueName('labels_a');
  const tenantB = uniqueName('labels_b');
  const a = tokenFor(tenantA, 'member');
  const b = tokenFor(tenantB, 'member');

  beforeAll(async () => {
    // The api alone: triggered executions stay QUEUED, which is all the filters need.
    kairos = await startTestKairos('labels', { roles: ['api'] });
  });
  afterAll(async () => {
    await kairos?.stop();
  });

  /** A job far in the future (nothing materialised), with `extra` fields (labels as an object). */
  function input(name: string, labels: Labels = {}, extra: Record<string, unknown> = {}) {
    return {
      name,
      schedule: { intervalSeconds: 31_536_000, startAt: new Date(Date.now() + 31_536_000_000).toISOString() },
      target: { handler: 'noop' },
      labels: labelList(labels),
      ...extra,
    };
  }
  async function create(token: string, name: string, labels: Labels = {}, extra: Record<string, unknown> = {}) {
    const { createJob } = await gqlOk(kairos.url, token, CREATE, { input: input(name, labels, extra) });
    return createJob.job as { id: string; name: string; labels: { key: string; value: string }[]; externalId: string | null };
  }
  async function jobNames(token: string, filter: Record<string, unknown>): Promise<{ names: string[]; total: number }> {
    const { jobs } = await gqlOk(kairos.url, token, JOBS, { filter, first: 100 });
    return { names: jobs.edges.map((e: any) => e.node.name).sort(), total: jobs.totalCount };
  }
  async function executionJobs(token: string, filter: Record<string, unknown>): Promise<string[]> {
    const { executions } = await gqlOk(kairos.url, token, EXECUTIONS, { filter });
    return executions.edges.map((e: any) => e.node.jobId).sort();
  }
  async function trigger(token: string, id: string, times = 1): Promise<void> {
    for (let i = 0; i < times; i++) await gqlOk(kairos.url, token, TRIGGER, { id });
  }

  describe('filters', () => {
    const ids: Record<string, string> = {};
    beforeAll(async () => {
      ids.payProd = (await create(a, 'pay-prod', { team: 'payments', env: 'prod' })).id;
      ids.payDev = (await create(a, 'pay-dev', { env: 'dev', team: 'payments' })).id;
      ids.opsProd = (await create(a, 'ops-prod', { team: 'ops', env: 'prod' })).id;
      ids.bare = (await create(a, 'bare')).id;
      // Another tenant's job with the very same labels: never matches tenant A's filters.
      ids.other = (await create(b, 'other-pay-prod', { team: 'payments', env: 'prod' })).id;
      await trigger(a, ids.payProd, 2);
      await trigger(a, ids.payDev);
      await trigger(a, ids.opsProd);
      await trigger(a, ids.bare);
      await trigger(b, ids.other, 3);
    });

    it('returns labels sorted by key, and none as an empty list', async () => {
      const { jobs } = await gqlOk(kairos.url, a, JOBS, { filter: { namePrefix: 'pay-dev' } });
      expect(jobs.edges[0].node.labels).toEqual([
        { key: 'env', value: 'dev' },
        { key: 'team', value: 'payments' },
      ]);
      expect((await gqlOk(kairos.url, a, JOBS, { filter: { namePrefix: 'bare' } })).jobs.edges[0].node.labels).toEqual([]);
    });

    it('jobs: one label, several labels ANDed, and never another tenant’s job', async () => {
      expect(await jobNames(a, { labels: labelList({ team: 'payments' }) })).toEqual({ names: ['pay-dev', 'pay-prod'], total: 2 });
      expect(await jobNames(a, { labels: labelList({ env: 'prod' }) })).toEqual({ names: ['ops-prod', 'pay-prod'], total: 2 });
      expect(await jobNames(a, { labels: labelList({ team: 'payments', env: 'prod' }) })).toEqual({ names: ['pay-prod'], total: 1 });
      expect(await jobNames(a, { labels: labelList({ env: 'prod', team: 'payments' }) })).toEqual({ names: ['pay-prod'], total: 1 });
      expect(await jobNames(a, { labels: labelList({ team: 'ops', env: 'dev' }) })).toEqual({ names: [], total: 0 });
      // A value must be equal, not a prefix; a key alone is not a label.
      expect(await jobNames(a, { labels: labelList({ team: 'pay' }) })).toEqual({ names: [], total: 0 });
      expect(await jobNames(b, { labels: labelList({ team: 'payments' }) })).toEqual({ names: ['other-pay-prod'], total: 1 });
    });

    it('jobs: a label filter with statuses and a name prefix, and paged with cursors', async () => {
      expect(await jobNames(a, { labels: labelList({ team: 'payments' }), namePrefix: 'pay-p', statuses: ['ACTIVE'] })).toEqual({
        names: ['pay-prod'],
        total: 1,
      });
      const first = (await gqlOk(kairos.url, a, JOBS, { filter: { labels: labelList({ team: 'payments' }) }, first: 1 })).jobs;
      expect(first.pageInfo.hasNextPage).toBe(true);
      const second = (
        await gqlOk(kairos.url, a, JOBS, { filter: { labels: labelList({ team: 'payments' }) }, first: 1, after: first.pageInfo.endCursor })
      ).jobs;
      expect(second.pageInfo.hasNextPage).toBe(false);
      // Newest first: pay-dev was created after pay-prod.
      expect([first.edges[0].node.name, second.edges[0].node.name]).toEqual(['pay-dev', 'pay-prod']);
    });

    it('executions: by the labels their job carries, ANDed, and never another tenant’s', async () => {
      expect(await executionJobs(a, { labels: labelList({ team: 'payments' }) })).toEqual([ids.payProd, ids.payProd, ids.payDev].sort());
      expect(await executionJobs(a, { labels: labelList({ team: 'payments', env: 'prod' }) })).toEqual([ids.payProd, ids.payProd]);
      expect(await executionJobs(a, { labels: labelList({ env: 'prod' }), statuses: ['QUEUED'] })).toEqual(
        [ids.payProd, ids.payProd, ids.opsProd].sort(),
      );
      expect(await executionJobs(a, { labels: labelList({ team: 'nobody' }) })).toEqual([]);
      expect(await executionJobs(b, { labels: labelList({ team: 'payments' }) })).toEqual([ids.other, ids.other, ids.other]);
    });

    it("executions: a label filter with a jobId, and a job's own executions", async () => {
      expect(await executionJobs(a, { labels: labelList({ team: 'payments' }), jobId: ids.payDev })).toEqual([ids.payDev]);
      expect(await executionJobs(a, { labels: labelList({ team: 'ops' }), jobId: ids.payDev })).toEqual([]);
      const own = (labels: Labels) =>
        gqlOk(kairos.url, a, JOB_EXECUTIONS, { id: ids.payProd, filter: { labels: labelList(labels) } }).then(
          (d) => d.job.executions.edges.length,
        );
      expect(await own({ env: 'prod' })).toBe(2);
      expect(await own({ env: 'dev' })).toBe(0);
    });

    it("executions: a label changed later applies to the job's past executions", async () => {
      await gqlOk(kairos.url, a, UPDATE, { input: { id: ids.bare, labels: labelList({ team: 'payments', env: 'dev' }) } });
      expect(await executionJobs(a, { labels: labelList({ team: 'payments', env: 'dev' }) })).toEqual([ids.payDev, ids.bare].sort());
    });
  });

  it('a bulk cancel over a label filter takes only the executions of the jobs carrying it', async () => {
    const taken = await create(a, 'bulk taken', { bulk: 'yes' });
    const left = await create(a, 'bulk left', { bulk: 'no' });
    await trigger(a, taken.id, 2);
    await trigger(a, left.id);
    const CANCEL = `mutation($filter: ExecutionFilter!) { cancelExecutions(filter: $filter) { id total } }`;
    const { cancelExecutions } = await gqlOk(kairos.url, a, CANCEL, { filter: { labels: labelList({ bulk: 'yes' }) } });
    expect(cancelExecutions.total).toBe(2);
    const statuses = async (jobId: string) => {
      const { job } = await gqlOk(
        kairos.url,
        a,
        `query($id: ID!) { job(id: $id) { executions(first: 10) { edges { node { status } } } } }`,
        {
          id: jobId,
        },
      );
      return job.executions.edges.map((e: any) => e.node.status);
    };
    await waitUntil(
      'the bulk cancel to end',
      async () => ((await statuses(taken.id)).every((status: string) => status === 'CANCELLED') ? true : undefined),
      20_000,
    );
    expect(await statuses(taken.id)).toEqual(['CANCELLED', 'CANCELLED']);
    expect(await statuses(left.id)).toEqual(['QUEUED']);
  });

  describe('external ids', () => {
    it('a second create with a held external id is CONFLICT naming the job that holds it; another tenant may use it', async () => {
      const first = await create(a, 'crm job', {}, { externalId: 'crm-1' });
      expect(first.externalId).toBe('crm-1');
      const again = await gql(kairos.url, a, CREATE, { input: input('crm job again', {}, { externalId: 'crm-1' }) });
      expect(again.errors?.[0].extensions?.code).toBe('CONFLICT');
      expect(again.errors?.[0].message).toContain(first.id);
      expect(again.errors?.[0].extensions?.jobId).toBe(first.id);
      expect(again.errors?.[0].extensions?.field).toBe('externalId');
      expect((await jobNames(a, { namePrefix: 'crm job again' })).total).toBe(0);
      expect((await create(b, 'crm job of b', {}, { externalId: 'crm-1' })).externalId).toBe('crm-1');
      // The filter finds it, in its own tenant only.
      expect(await jobNames(a, { externalId: 'crm-1' })).toEqual({ names: ['crm job'], total: 1 });
      expect(await jobNames(b, { externalId: 'crm-1' })).toEqual({ names: ['crm job of b'], total: 1 });
      expect(await jobNames(a, { externalId: 'crm-404' })).toEqual({ names: [], total: 0 });
    });

    it('a create repeated with its idempotency key returns the job, external id and all, without a conflict', async () => {
      const extra = { externalId: 'crm-idem', idempotencyKey: uniqueName('key') };
      const first = await create(a, 'idem', {}, extra);
      expect((await create(a, 'idem', {}, extra)).id).toBe(first.id);
    });

    it('upsert updates the job holding the external id instead, and creates one when none does', async () => {
      const first = await create(a, 'upsert me', { team: 'a' }, { externalId: 'crm-up' });
      const updated = await create(a, 'upserted', { team: 'b', tier: 'gold' }, { externalId: 'crm-up', upsert: true });
      expect(updated).toEqual({
        id: first.id,
        name: 'upserted',
        labels: [
          { key: 'team', value: 'b' },
          { key: 'tier', value: 'gold' },
        ],
        externalId: 'crm-up',
      });
      expect(await jobNames(a, { externalId: 'crm-up' })).toEqual({ names: ['upserted'], total: 1 });
      const created = await create(a, 'upsert new', {}, { externalId: 'crm-new', upsert: true });
      expect(created.id).not.toBe(first.id);
      expect(created.externalId).toBe('crm-new');
      const without = await gql(kairos.url, a, CREATE, { input: input('no id', {}, { upsert: true }) });
      expect(without.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
      expect(without.errors?.[0].message).toBe('upsert needs an externalId: the job to update is found by it');
    });

    it('an upsert repeated with the same input changes nothing', async () => {
      const UPSERT = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id updatedAt nextRunAt } } }`;
      const same = input('steady', { team: 'a' }, { externalId: 'crm-steady', upsert: true, payload: { n: 1 }, timeoutSeconds: 30 });
      const first = (await gqlOk(kairos.url, a, UPSERT, { input: same })).createJob.job;
      const again = (await gqlOk(kairos.url, a, UPSERT, { input: same })).createJob.job;
      expect(again).toEqual(first);
    });

    it('upserts racing on a new external id make one job', async () => {
      const jobs = await Promise.all(
        Array.from({ length: 8 }, (_, i) => create(a, `racer ${i}`, {}, { externalId: 'crm-race', upsert: true })),
      );
      expect(new Set(jobs.map((job) => job.id)).size).toBe(1);
      expect((await jobNames(a, { externalId: 'crm-race' })).total).toBe(1);
      expect((await jobNames(a, { namePrefix: 'racer' })).total).toBe(1);
    });

    it('executions filter by their job’s external id', async () => {
      const job = await create(a, 'ext runs', {}, { externalId: 'crm-runs' });
      await trigger(a, job.id, 2);
      expect(await executionJobs(a, { jobExternalId: 'crm-runs' })).toEqual([job.id, job.id]);
      expect(await executionJobs(b, { jobExternalId: 'crm-runs' })).toEqual([]);
    });

    it('updateJob sets, moves and removes an external id; one held by another job is CONFLICT naming it', async () => {
      const holder = await create(a, 'holder', {}, { externalId: 'crm-held' });
      const other = await create(a, 'other');
      const taken = await gql(kairos.url, a, UPDATE, { input: { id: other.id, externalId: 'crm-held' } });
      expect(taken.errors?.[0].extensions?.code).toBe('CONFLICT');
      expect(taken.errors?.[0].message).toContain(holder.id);
      // Setting its own id again is no change.
      expect((await gqlOk(kairos.url, a, UPDATE, { input: { id: holder.id, externalId: 'crm-held' } })).updateJob.job.externalId).toBe(
        'crm-held',
      );
      expect((await gqlOk(kairos.url, a, UPDATE, { input: { id: holder.id, externalId: null } })).updateJob.job.externalId).toBeNull();
      expect((await gqlOk(kairos.url, a, UPDATE, { input: { id: other.id, externalId: 'crm-held' } })).updateJob.job.externalId).toBe(
        'crm-held',
      );
      expect(await jobNames(a, { externalId: 'crm-held' })).toEqual({ names: ['other'], total: 1 });
    });
  });

  it('updateJob replaces the labels, and null removes them', async () => {
    const job = await create(a, 'relabel', { team: 'x', env: 'prod' });
    const replaced = await gqlOk(kairos.url, a, UPDATE, { input: { id: job.id, labels: labelList({ team: 'y' }) } });
    expect(replaced.updateJob.job.labels).toEqual([{ key: 'team', value: 'y' }]);
    expect((await jobNames(a, { labels: labelList({ team: 'x' }) })).names).not.toContain('relabel');
    expect((await jobNames(a, { labels: labelList({ team: 'y' }) })).names).toContain('relabel');
    const kept = await gqlOk(kairos.url, a, UPDATE, { input: { id: job.id, name: 'relabel' } });
    expect(kept.updateJob.job.labels).toEqual([{ key: 'team', value: 'y' }]);
    const cleared = await gqlOk(kairos.url, a, UPDATE, { input: { id: job.id, labels: null } });
    expect(cleared.updateJob.job.labels).toEqual([]);
  });

  describe('bounds', () => {
    const refused = async (query: string, variables: Record<string, unknown>) => {
      const result = await gql(kairos.url, a, query, variables);
      expect(result.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
      return { message: result.errors?.[0].message, field: result.errors?.[0].extensions?.field };
    };
    const many = (n: number): Labels => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));

    it('refuses too many labels, a bad key, a key twice and a long value, with what to fix, and stores nothing', async () => {
      expect(await refused(CREATE, { input: input('bounds', many(33)) })).toEqual({
        message: 'labels may have at most 32 entries',
        field: 'labels',
      });
      expect((await refused(CREATE, { input: input('bounds', { 'bad key': 'v' }) })).message).toMatch(
        /^labels: key "bad key" must be 1 to 63/,
      );
      expect(
        (
          await refused(CREATE, {
            input: {
              ...input('bounds'),
              labels: [
                { key: 'k', value: '1' },
                { key: 'k', value: '2' },
              ],
            },
          })
        ).message,
      ).toBe('labels: key "k" is given more than once');
      expect((await refused(CREATE, { input: input('bounds', { k: 'v'.repeat(201) }) })).message).toMatch(
        /^labels: the value of "k" must be at most 200/,
      );
      expect((await refused(CREATE, { input: input('bounds', {}, { externalId: 'x'.repeat(201) }) })).field).toBe('externalId');
      expect((await jobNames(a, { namePrefix: 'bounds' })).total).toBe(0);
      const job = await create(a, 'bounded');
      expect((await refused(UPDATE, { input: { id: job.id, labels: labelList(many(33)) } })).field).toBe('labels');
    });

    it(`refuses an executions label filter that matches more than ${LABEL_LIMITS.filterJobs} jobs, and takes one that matches that many`, async () => {
      const tenant = uniqueName('labels_many');
      const token = tokenFor(tenant, 'viewer');
      const client = await MongoClient.connect(MONGO_URL);
      try {
        // Straight into the store: as many jobs through the API would take most of a minute.
        await create(a, 'template', { fleet: 'big' }, { externalId: 'template' });
        const { tenantId: _tenant, ...doc } = (await new JobStore(client.db(kairos.dbName), tenantA).findByExternalId('template'))!;
        const many = (n: number) =>
          Array.from({ length: n }, () => {
            const _id = new ObjectId();
            return { ...doc, _id, idempotencyKey: `auto:${_id.toHexString()}`, externalKey: `auto:${_id.toHexString()}` };
          });
        const store = new JobStore(client.db(kairos.dbName), tenant);
        await store.insertMany(many(LABEL_LIMITS.filterJobs));
        expect(await executionJobs(token, { labels: labelList({ fleet: 'big' }) })).toEqual([]);
        await store.insertMany(many(1));
        const result = await gql(kairos.url, token, EXECUTIONS, { filter: { labels: labelList({ fleet: 'big' }) } });
        expect(result.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
        expect(result.errors?.[0].message).toBe(
          `filter.labels match more than ${LABEL_LIMITS.filterJobs} jobs; add a label, a jobId or a jobExternalId to narrow it`,
        );
      } finally {
        await client.close();
      }
    });

    it('refuses a bad label in a filter, naming the filter', async () => {
      expect((await refused(JOBS, { filter: { labels: [{ key: '=', value: 'v' }] } })).field).toBe('filter.labels');
      expect((await refused(EXECUTIONS, { filter: { labels: labelList(many(33)) } })).field).toBe('filter.labels');
      expect((await refused(EXECUTIONS, { filter: { jobExternalId: '' } })).field).toBe('filter.jobExternalId');
    });
  });
});
