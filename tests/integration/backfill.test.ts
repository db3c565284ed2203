// Covers: src/jobs/backfillJob.ts, src/transitions/insertBackfilled.ts, src/resolvers/backfill.resolver.ts, src/schema/backfill.type.ts,
// src/domain/occurrenceKey.ts, src/store/insertNew.ts, src/store/executionStore.ts, src/domain/schedule/occurrencesBetween.ts, src/domain/backfillPacing.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { waitUntil } from '../support/waitFor.js';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const BACKFILL = `mutation($id: ID!, $from: DateTime!, $to: DateTime!, $dryRun: Boolean) {
  backfillJob(id: $id, from: $from, to: $to, dryRun: $dryRun) { job { id status } dryRun instants { at local } excluded created existing lastStartAt } }`;
const EXECUTIONS = `query($jobId: ID) { executions(first: 100, filter: { jobId: $jobId }) { edges { node { id status trigger scheduledFor startLagMs } } } }`;
const STATS = `query($jobId: ID!) { executionStats(since: "2026-03-01T00:00:00Z", until: "2026-04-01T00:00:00Z", jobId: $jobId) { total startLagMsP50 startLagMsP99 } }`;
const PAUSE = `mutation($id: ID!) { pauseJob(id: $id) { job { id status } } }`;
const DELETE = `mutation($id: ID!) { deleteJob(id: $id) { deletedJobId } }`;

interface Node {
  id: string;
  status: string;
  trigger: string;
  scheduledFor: string;
  startLagMs: number | null;
}

/** 30 days of March 2026 in Berlin: 1 to 30 March, local midnight to local midnight; clocks go forward on the 29th. */
const MARCH = { from: '2026-03-01T00:00:00+01:00', to: '2026-03-31T00:00:00+02:00' };
const MAX = 40;

/** Every day at 02:30 in Berlin: the 29th's 02:30 does not exist and fires at 03:00 CEST, the first instant after the gap. */
const expectedLocal = Array.from({ length: 30 }, (_, i) => {
  const day = String(i + 1).padStart(2, '0');
  if (i + 1 < 29) return `2026-03-${day}T02:30:00.000+01:00`;
  return i + 1 === 29 ? '2026-03-29T03:00:00.000+02:00' : `2026-03-${day}T02:30:00.000+02:00`;
});

describe('backfillJob: past occurrences as BACKFILL executions', () => {
  let k: TestKairos;
  const tenant = uniqueName('backfill');
  const token = tokenFor(tenant, 'member');
  const otherTenant = tokenFor(uniqueName('backfill-other'), 'admin');

  beforeAll(async () => {
    k = await startTestKairos('backfill', { env: { BACKFILL_MAX_OCCURRENCES: String(MAX), BACKFILL_EXECUTIONS_PER_SECOND: '50' } });
  });
  afterAll(async () => {
    await k?.stop();
  });

  const createDaily = async (name: string, extra: Record<string, unknown> = {}): Promise<string> =>
    (
      await gqlOk(k.url, token, CREATE, {
        input: {
          name,
          schedule: { cron: '30 2 * * *', timezone: 'Europe/Berlin' },
          target: { handler: 'noop' },
          overlapPolicy: 'ALLOW',
          ...extra,
        },
      })
    ).createJob.job.id;
  const executionsOf = async (jobId: string): Promise<Node[]> =>
    (await gqlOk(k.url, token, EXECUTIONS, { jobId })).executions.edges.map((e: { node: Node }) => e.node);
  const allSucceeded = (jobId: string, count: number) =>
    waitUntil(
      `${count} executions of ${jobId} SUCCEEDED`,
      async () => {
        const nodes = await executionsOf(jobId);
        return nodes.length === count && nodes.every((n) => n.status === 'SUCCEEDED') ? nodes : undefined;
      },
      30_000,
    );

  it('30 days of a daily 02:30 in Europe/Berlin across the DST change: the dry run creates nothing, the backfill 30 executions that run, a repeat none', async () => {
    const jobId = await createDaily('daily report');

    const dry = (await gqlOk(k.url, token, BACKFILL, { id: jobId, ...MARCH, dryRun: true })).backfillJob;
    expect(dry).toMatchObject({ dryRun: true, excluded: 0, created: 0, existing: null, lastStartAt: null });
    expect(dry.instants.map((i: { local: string }) => i.local)).toEqual(expectedLocal);
    expect(dry.instants.slice(27, 29).map((i: { at: string }) => i.at)).toEqual(['2026-03-28T01:30:00.000Z', '2026-03-29T01:00:00.000Z']);
    expect(await executionsOf(jobId)).toEqual([]);

    const done = (await gqlOk(k.url, token, BACKFILL, { id: jobId, ...MARCH })).backfillJob;
    expect(done).toMatchObject({ dryRun: false, created: 30, existing: 0 });
    expect(done.instants).toEqual(dry.instants);
    expect(Date.parse(done.lastStartAt)).toBeGreaterThan(Date.now() - 5000);

    const ran = await allSucceeded(jobId, 30);
    expect(ran.every((n) => n.trigger === 'BACKFILL')).toBe(true);
    // Each at its nominal instant (what X-Kairos-Scheduled-For tells the target), whatever the misfire policy.
    expect(ran.map((n) => n.scheduledFor).sort()).toEqual(dry.instants.map((i: { at: string }) => i.at));

    // Their lag behind a past instant is by design: no start lag (weeks would not fit an Int), none in the stats.
    expect(ran.every((n) => n.startLagMs === null)).toBe(true);
    expect((await gqlOk(k.url, token, STATS, { jobId })).executionStats).toEqual({ total: 30, startLagMsP50: null, startLagMsP99: null });

    const again = (await gqlOk(k.url, token, BACKFILL, { id: jobId, ...MARCH })).backfillJob;
    expect(again).toMatchObject({ created: 0, existing: 30, lastStartAt: null });
    // An overlapping range creates only the occurrences that have none.
    const wider = (await gqlOk(k.url, token, BACKFILL, { id: jobId, from: MARCH.from, to: '2026-04-02T00:00:00+02:00' })).backfillJob;
    expect(wider).toMatchObject({ created: 2, existing: 30 });
    const all = await allSucceeded(jobId, 32);
    expect(new Set(all.map((n) => n.scheduledFor)).size).toBe(32);
  });

  it("shares the scheduler's occurrence keys: an occurrence the scheduler ran is not created again", async () => {
    const createdAt = Date.now();
    const jobId = (
      await gqlOk(k.url, token, CREATE, { input: { name: 'every second', schedule: { intervalSeconds: 1 }, target: { handler: 'noop' } } })
    ).createJob.job.id;
    const scheduled = await waitUntil(
      'three scheduled runs',
      async () => {
        const done = (await executionsOf(jobId)).filter((n) => n.trigger === 'SCHEDULE' && n.status === 'SUCCEEDED');
        return done.length >= 3 ? done : undefined;
      },
      20_000,
    );
    const to = new Date(Math.max(...scheduled.map((n) => Date.parse(n.scheduledFor))) + 1).toISOString();
    const result = (await gqlOk(k.url, token, BACKFILL, { id: jobId, from: new Date(createdAt - 5000).toISOString(), to })).backfillJob;
    // The instants before the job existed are new; those the scheduler ran (and any it has materialised) are not.
    expect(result.existing).toBeGreaterThanOrEqual(3);
    expect(result.created + result.existing).toBe(result.instants.length);
    await gqlOk(k.url, token, PAUSE, { id: jobId });
    const nodes = await executionsOf(jobId);
    const instants = nodes.filter((n) => n.status !== 'CANCELLED').map((n) => n.scheduledFor);
    expect(new Set(instants).size).toBe(instants.length);
    expect(nodes.filter((n) => n.trigger === 'BACKFILL')).toHaveLength(result.created);
  });

  it("leaves out the occurrences the job's exclusion windows cover, as previewSchedule and the scheduler do", async () => {
    // Weekends excluded, in Berlin: 28 and 29 March 2026 are a Saturday and a Sunday.
    const weekends = { name: 'weekends', cron: '0 0 * * 6', durationSeconds: 172_800 };
    const jobId = await createDaily('weekdays only', { exclusions: [weekends] });
    const range = { id: jobId, from: '2026-03-26T00:00:00+01:00', to: '2026-04-01T00:00:00+02:00' };
    const dry = (await gqlOk(k.url, token, BACKFILL, { ...range, dryRun: true })).backfillJob;
    expect(dry.instants.map((i: { local: string }) => i.local)).toEqual([
      '2026-03-26T02:30:00.000+01:00',
      '2026-03-27T02:30:00.000+01:00',
      '2026-03-30T02:30:00.000+02:00',
      '2026-03-31T02:30:00.000+02:00',
    ]);
    expect(dry.excluded).toBe(2);
    expect((await gqlOk(k.url, token, BACKFILL, range)).backfillJob).toMatchObject({ created: 4, excluded: 2, existing: 0 });
    const ran = await allSucceeded(jobId, 4);
    expect(ran.map((n) => n.scheduledFor).sort()).toEqual(dry.instants.map((i: { at: string }) => i.at));
  });

  it('refuses more than BACKFILL_MAX_OCCURRENCES, a range reaching past now and an empty one, with nothing created', async () => {
    const jobId = await createDaily('too long');
    for (const dryRun of [false, true]) {
      const refused = await gql(k.url, token, BACKFILL, { id: jobId, from: '2026-01-01T00:00:00Z', to: '2026-03-01T00:00:00Z', dryRun });
      expect(refused.errors?.[0].extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'to', maxOccurrences: MAX });
      expect(refused.errors?.[0].message).toContain('BACKFILL_MAX_OCCURRENCES');
    }
    const future = await gql(k.url, token, BACKFILL, {
      id: jobId,
      from: '2026-03-01T00:00:00Z',
      to: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(future.errors?.[0].extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'to' });
    const backwards = await gql(k.url, token, BACKFILL, { id: jobId, from: '2026-03-02T00:00:00Z', to: '2026-03-01T00:00:00Z' });
    expect(backwards.errors?.[0].extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'to' });
    expect(await executionsOf(jobId)).toEqual([]);
  });

  it('a paused job is backfilled and stays paused; a deleted job, an unknown id and another tenant’s job are NOT_FOUND', async () => {
    const jobId = await createDaily('paused');
    await gqlOk(k.url, token, PAUSE, { id: jobId });
    const paused = (await gqlOk(k.url, token, BACKFILL, { id: jobId, from: '2026-03-01T00:00:00Z', to: '2026-03-04T00:00:00Z' }))
      .backfillJob;
    expect(paused).toMatchObject({ job: { status: 'PAUSED' }, created: 3 });
    await allSucceeded(jobId, 3);

    const otherTenants = await gql(k.url, otherTenant, BACKFILL, { id: jobId, ...MARCH, dryRun: true });
    expect(otherTenants.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    const malformed = await gql(k.url, token, BACKFILL, { id: 'nope', ...MARCH });
    expect(malformed.errors?.[0].extensions?.code).toBe('NOT_FOUND');

    await gqlOk(k.url, token, DELETE, { id: jobId });
    const deleted = await gql(k.url, token, BACKFILL, { id: jobId, ...MARCH });
    expect(deleted.errors?.[0].extensions?.code).toBe('NOT_FOUND');
  });

  it('a viewer may dry-run nothing: backfillJob needs MEMBER', async () => {
    const jobId = await createDaily('viewer');
    const refused = await gql(k.url, tokenFor(tenant, 'viewer'), BACKFILL, { id: jobId, ...MARCH, dryRun: true });
    expect(refused.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });
});

describe('backfillJob and the waiting room (maxWaitingExecutions)', () => {
  let k: TestKairos;
  const token = tokenFor(uniqueName('backfill-quota'), 'member');

  beforeAll(async () => {
    // No workers: what is enqueued keeps waiting, so the room is known.
    k = await startTestKairos('backfill-quota', { roles: ['api'], env: { DEFAULT_MAX_WAITING_EXECUTIONS: '10' } });
  });
  afterAll(async () => {
    await k?.stop();
  });

  it('refuses a backfill the room cannot hold, creating nothing; one it can hold goes in, and its repeat needs no room', async () => {
    const jobId = (
      await gqlOk(k.url, token, CREATE, { input: { name: 'daily', schedule: { cron: '0 6 * * *' }, target: { handler: 'noop' } } })
    ).createJob.job.id;
    const refused = await gql(k.url, token, BACKFILL, { id: jobId, from: '2026-03-01T00:00:00Z', to: '2026-03-13T00:00:00Z' });
    expect(refused.errors?.[0].extensions).toEqual({
      code: 'QUOTA_EXCEEDED',
      maxWaitingExecutions: 10,
      waitingExecutions: 0,
      backfillExecutions: 12,
    });
    const first = (await gqlOk(k.url, token, BACKFILL, { id: jobId, from: '2026-03-01T00:00:00Z', to: '2026-03-09T00:00:00Z' }))
      .backfillJob;
    expect(first).toMatchObject({ created: 8, existing: 0 });
    const repeat = (await gqlOk(k.url, token, BACKFILL, { id: jobId, from: '2026-03-01T00:00:00Z', to: '2026-03-09T00:00:00Z' }))
      .backfillJob;
    expect(repeat).toMatchObject({ created: 0, existing: 8 });
    const nodes = (await gqlOk(k.url, token, EXECUTIONS, { jobId })).executions.edges.map((e: { node: Node }) => e.node);
    expect(nodes).toHaveLength(8);
    expect(nodes.every((n: Node) => n.status === 'QUEUED' && n.trigger === 'BACKFILL')).toBe(true);
  });
});
