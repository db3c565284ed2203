// Covers: src/resolvers/listExecutions.ts, src/resolvers/tenantScan.ts
import { ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { toGlobalId } from '../../src/ids/globalId.js';
import { ExecutionStore } from '../../src/store/executionStore.js';
import { JobStore } from '../../src/store/jobStore.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { holdPageReads } from '../support/holdPageReads.js';
import { waitUntil } from '../support/waitFor.js';

const CREATE = 'mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }';
const TENANT_PAGE = '{ executions(first: 100) { edges { node { id } } } }';
const JOB_PAGE = `{ executions(first: 100, filter: { jobId: "${toGlobalId('Job', new ObjectId())}" }) { edges { node { id } } } }`;

/**
 * On FerretDB an executions page over all of a tenant's jobs loads every execution of the tenant, so
 * four at once (the tenant's request turns) took the embedded server's cores from every other tenant:
 * a tenant's reads across all its jobs run one at a time in a process, inside its request turns.
 */
describe("a tenant's reads across all its jobs", () => {
  let k: TestKairos;

  beforeAll(async () => {
    k = await startTestKairos('tenantscans', { roles: ['api'], env: { API_TENANT_REQUESTS_IN_FLIGHT: '4' } });
  });
  afterAll(async () => {
    await k?.stop();
  });

  it('run one at a time, while its requests keep their four turns and another tenant reads meanwhile', async () => {
    const tenant = uniqueName('scanner');
    const token = tokenFor(tenant, 'viewer');
    const held = holdPageReads(tenant);
    try {
      const pages = Array.from({ length: 4 }, () => gql(k.url, token, TENANT_PAGE));
      await waitUntil('the first page read', async () => (held.seen.started >= 1 ? true : undefined), 10_000);
      // Another tenant's page is not behind them.
      const other = await gqlOk<{ executions: { edges: unknown[] } }>(k.url, tokenFor(uniqueName('other'), 'viewer'), TENANT_PAGE);
      expect(other.executions.edges).toEqual([]);
      expect(held.seen).toMatchObject({ started: 1, most: 1 });
      held.release();
      const answers = await Promise.all(pages);
      expect(answers.every((a) => !a.errors && Array.isArray(a.data?.executions.edges))).toBe(true);
      expect(held.seen).toMatchObject({ started: 4, most: 1 });
    } finally {
      held.restore();
    }
  });

  it("leave one job's pages to the request turns: they read only that job's executions", async () => {
    const tenant = uniqueName('jobreader');
    const token = tokenFor(tenant, 'viewer');
    const held = holdPageReads(tenant);
    try {
      const pages = Array.from({ length: 3 }, () => gql(k.url, token, JOB_PAGE));
      await waitUntil('three job page reads at once', async () => (held.seen.running === 3 ? true : undefined), 10_000);
      held.release();
      expect((await Promise.all(pages)).every((a) => !a.errors)).toBe(true);
      expect(held.seen.most).toBe(3);
    } finally {
      held.restore();
    }
  });

  it("take a scan turn to read a page of jobs' last executions", async () => {
    const tenant = uniqueName('lastexec');
    const token = tokenFor(tenant, 'member');
    for (const name of ['a', 'b'])
      await gqlOk(k.url, token, CREATE, {
        input: { name, paused: true, schedule: { intervalSeconds: 3600 }, target: { handler: 'noop' } },
      });
    const held = holdPageReads(tenant);
    const lastReads = jest.spyOn(ExecutionStore.prototype, 'newestStartedOfJobs');
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the store as `this`
    const listJobs = JobStore.prototype.list;
    let jobsListed = false;
    const jobsSpy = jest.spyOn(JobStore.prototype, 'list').mockImplementation(async function (this: JobStore, ...args) {
      const found = await listJobs.apply(this, args);
      jobsListed = true;
      return found;
    });
    try {
      const page = gql(k.url, token, TENANT_PAGE);
      await waitUntil('the page read', async () => (held.seen.started === 1 ? true : undefined), 10_000);
      const lastOfJobs = gql(k.url, token, '{ jobs(first: 10) { edges { node { name lastExecution { id } } } } }');
      await waitUntil('the jobs read', async () => (jobsListed ? true : undefined), 10_000);
      // In this process the loader's batch runs within a few turns of the event loop once the jobs are read.
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(lastReads).not.toHaveBeenCalled();
      held.release();
      expect((await page).errors).toBeUndefined();
      const answer = await lastOfJobs;
      expect(answer.errors).toBeUndefined();
      expect((answer.data as any).jobs.edges.map((e: any) => e.node.lastExecution)).toEqual([null, null]);
      expect(lastReads).toHaveBeenCalledTimes(1);
    } finally {
      held.restore();
      lastReads.mockRestore();
      jobsSpy.mockRestore();
    }
  });
});
