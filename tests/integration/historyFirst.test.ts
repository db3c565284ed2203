// Covers: src/resolvers/execution.resolver.ts, src/resolvers/listExecutions.ts, src/store/keyset.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MongoClient, ObjectId } from 'mongodb';
import { newExecution, type ExecutionStatus } from '../../src/domain/execution.js';
import { fromGlobalId } from '../../src/ids/globalId.js';
import { ExecutionStore } from '../../src/store/executionStore.js';
import { MONGO_URL } from '../support/env.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';

/*
 * Listing executions by phase (ExecutionFilter.phase) and Job.lastExecution. The api role alone
 * runs, so nothing schedules or runs these executions: each is written in the state the test
 * names, at a time relative to NOW, and the lists are exactly predictable.
 */

const NOW = new Date('2030-06-01T12:00:00Z');
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);

/** A job that runs every 2 s: four runs that happened, one due and queued, four materialised ahead. */
const FREQUENT: [ExecutionStatus, number][] = [
  ['SUCCEEDED', -8],
  ['FAILED', -6],
  ['SKIPPED', -4],
  ['RUNNING', -2],
  ['QUEUED', 0],
  ['SCHEDULED', 2],
  ['SCHEDULED', 4],
  ['SCHEDULED', 6],
  ['SCHEDULED', 8],
];

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const EXECUTIONS = `query($filter: ExecutionFilter, $first: Int, $after: String, $last: Int, $before: String) {
  executions(filter: $filter, first: $first, after: $after, last: $last, before: $before) {
    edges { node { status scheduledFor } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}`;
const LAST_EXECUTIONS = `{ jobs(first: 10) { edges { node { id lastExecution { status scheduledFor job { id } } } } } }`;

/** `status@offset seconds` of each listed execution, in list order. */
const labels = (connection: { edges: { node: { status: string; scheduledFor: string } }[] }) =>
  connection.edges.map((e) => `${e.node.status}@${(Date.parse(e.node.scheduledFor) - NOW.getTime()) / 1000}`);

describe('history first: ExecutionFilter.phase and Job.lastExecution', () => {
  let k: TestKairos;
  let mongo: MongoClient;
  const tenant = uniqueName('history');
  const token = tokenFor(tenant, 'viewer');
  const member = tokenFor(tenant, 'member');
  let frequent: string;
  let ahead: string;

  /** A job whose own schedule (a year away) materialises nothing; its executions are written below. */
  async function job(name: string): Promise<string> {
    const input = { name, schedule: { runAt: new Date(Date.now() + 365 * 86_400_000).toISOString() }, target: { handler: 'noop' } };
    return (await gqlOk(k.url, member, CREATE, { input })).createJob.job.id;
  }

  async function write(jobId: string, executions: [ExecutionStatus, number][]): Promise<void> {
    const store = new ExecutionStore(mongo.db(k.dbName), tenant);
    const id = fromGlobalId(jobId, 'Job')!.id;
    for (const [status, offset] of executions) {
      const scheduledFor = at(offset);
      const fields = { jobId: id, occurrenceKey: `${id.toHexString()}@${scheduledFor.toISOString()}`, scheduledFor, maxAttempts: 1 };
      const doc = newExecution({ ...fields, tenantId: tenant, trigger: 'SCHEDULE', workload: 'IO_BOUND' }, NOW);
      const started = !['SCHEDULED', 'QUEUED'].includes(status);
      await store.insert({
        ...doc,
        status,
        startedAt: started ? scheduledFor : null,
        finishedAt: started && status !== 'RUNNING' ? scheduledFor : null,
      });
    }
  }

  const list = async (variables: Record<string, unknown>) => (await gqlOk(k.url, token, EXECUTIONS, variables)).executions;

  beforeAll(async () => {
    k = await startTestKairos('history', { roles: ['api'] });
    mongo = await MongoClient.connect(MONGO_URL);
    frequent = await job('frequent');
    ahead = await job('only-ahead');
    await write(frequent, FREQUENT);
    await write(ahead, [
      ['SCHEDULED', 10],
      ['QUEUED', 1],
    ]);
  });
  afterAll(async () => {
    await mongo?.close();
    await k?.stop();
  });

  it('lists upcoming occurrences first without a phase (which is why the phase exists)', async () => {
    expect(labels(await list({ filter: { jobId: frequent }, first: 3 }))).toEqual(['SCHEDULED@8', 'SCHEDULED@6', 'SCHEDULED@4']);
  });

  it('HISTORY: only started or finished executions, newest first, through keyset pages', async () => {
    const first = await list({ filter: { jobId: frequent, phase: 'HISTORY' }, first: 3 });
    expect(labels(first)).toEqual(['RUNNING@-2', 'SKIPPED@-4', 'FAILED@-6']);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const rest = await list({ filter: { jobId: frequent, phase: 'HISTORY' }, first: 3, after: first.pageInfo.endCursor });
    expect(labels(rest)).toEqual(['SUCCEEDED@-8']);
    expect(rest.pageInfo.hasNextPage).toBe(false);
    // Across the tenant's jobs: the job with only occurrences ahead adds nothing.
    expect(labels(await list({ filter: { phase: 'HISTORY' } }))).toEqual(['RUNNING@-2', 'SKIPPED@-4', 'FAILED@-6', 'SUCCEEDED@-8']);
  });

  it('UPCOMING: only SCHEDULED and QUEUED; last: N gives the N soonest, still listed newest first', async () => {
    expect(labels(await list({ filter: { jobId: frequent, phase: 'UPCOMING' } }))).toEqual([
      'SCHEDULED@8',
      'SCHEDULED@6',
      'SCHEDULED@4',
      'SCHEDULED@2',
      'QUEUED@0',
    ]);
    const soonest = await list({ filter: { jobId: frequent, phase: 'UPCOMING' }, last: 2 });
    expect(labels(soonest)).toEqual(['SCHEDULED@2', 'QUEUED@0']);
    expect(soonest.pageInfo.hasPreviousPage).toBe(true);
    const next = await list({ filter: { jobId: frequent, phase: 'UPCOMING' }, last: 2, before: soonest.pageInfo.startCursor });
    expect(labels(next)).toEqual(['SCHEDULED@6', 'SCHEDULED@4']);
  });

  it('intersects a phase with statuses, possibly to nothing', async () => {
    const filter = { jobId: frequent, statuses: ['FAILED', 'SCHEDULED', 'QUEUED'] };
    expect(labels(await list({ filter: { ...filter, phase: 'HISTORY' } }))).toEqual(['FAILED@-6']);
    expect(labels(await list({ filter: { ...filter, phase: 'UPCOMING' }, last: 2 }))).toEqual(['SCHEDULED@2', 'QUEUED@0']);
    expect(labels(await list({ filter: { ...filter, statuses: ['SUCCEEDED'], phase: 'UPCOMING' } }))).toEqual([]);
    // One status of the phase: the equality the store sends as is.
    expect(labels(await list({ filter: { ...filter, statuses: ['QUEUED'], phase: 'UPCOMING' } }))).toEqual(['QUEUED@0']);
  });

  it('Job.executions takes the phase too', async () => {
    const query = `query($id: ID!) { job(id: $id) { executions(first: 1, filter: { phase: HISTORY }) { edges { node { status scheduledFor } } } } }`;
    expect(labels((await gqlOk(k.url, token, query, { id: frequent })).job.executions)).toEqual(['RUNNING@-2']);
  });

  it('Job.lastExecution: the newest started or finished one, null for a job with only occurrences ahead', async () => {
    const { jobs } = await gqlOk(k.url, token, LAST_EXECUTIONS);
    const byId = new Map(jobs.edges.map((e: any) => [e.node.id, e.node.lastExecution]));
    expect(byId.get(frequent)).toEqual({ status: 'RUNNING', scheduledFor: at(-2).toISOString(), job: { id: frequent } });
    expect(byId.has(ahead)).toBe(true);
    expect(byId.get(ahead)).toBeNull();
  });

  it("Job.lastExecution does not see another tenant's executions of a job with the same id", async () => {
    const stranger = new ExecutionStore(mongo.db(k.dbName), uniqueName('stranger'));
    const id = fromGlobalId(ahead, 'Job')!.id;
    const doc = newExecution(
      {
        jobId: id,
        occurrenceKey: `stranger-${new ObjectId().toHexString()}`,
        scheduledFor: at(-1),
        maxAttempts: 1,
        tenantId: '',
        trigger: 'MANUAL',
        workload: 'IO_BOUND',
      },
      NOW,
    );
    await stranger.insert({ ...doc, status: 'SUCCEEDED', finishedAt: NOW });
    const query = `query($id: ID!) { job(id: $id) { lastExecution { status } } }`;
    expect((await gql(k.url, token, query, { id: ahead })).data?.job).toEqual({ lastExecution: null });
  });
});
