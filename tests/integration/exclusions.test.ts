// Covers: src/scheduler/exclusionSkips.ts, src/jobs/jobExclusions.ts, src/resolvers/calendar.resolver.ts, src/store/calendarStore.ts,
// src/jobs/createCalendar.ts, src/jobs/updateCalendar.ts, src/jobs/deleteCalendar.ts, src/domain/calendar.ts, src/schema/calendar.input.ts,
// src/schema/calendar.type.ts, src/schema/exclusion.input.ts, src/schema/exclusion.type.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ExecutionDoc } from '../../src/domain/execution.js';
import type { ExclusionWindow } from '../../src/domain/exclusion.js';
import type { JobDoc, Schedule } from '../../src/domain/job.js';
import { skippedOccurrences } from '../../src/domain/skippedOccurrences.js';
import { materialise } from '../../src/scheduler/materialise.js';
import { jobDoc, materialiseFixture } from '../support/fixtures.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gql, gqlOk } from '../support/graphqlClient.js';

const at = (iso: string) => new Date(iso);

describe('materialising occurrences inside exclusion windows', () => {
  let fixture: Awaited<ReturnType<typeof materialiseFixture>>;
  beforeAll(async () => {
    fixture = await materialiseFixture(uniqueName('exclusions'));
  });
  afterAll(async () => {
    await fixture?.close();
  });

  /** A cron job in `timezone` with one exclusion window, stored with its cursor at `cursor`. */
  async function storedJob(cursor: Date, cron: string, timezone: string, window: ExclusionWindow): Promise<JobDoc> {
    const schedule: Schedule = { kind: 'CRON', cron, timezone, jitterSeconds: 0 };
    const job = jobDoc(cursor, { schedule, exclusions: [window] });
    await fixture.db.collection<JobDoc>('jobs').insertOne(job);
    return job;
  }

  const executions = async (job: JobDoc) =>
    (await fixture.db.collection<ExecutionDoc>('executions').find({ jobId: job._id }).toArray()).sort(
      (a, b) => a.scheduledFor.getTime() - b.scheduledFor.getTime(),
    );

  it('records the Saturday occurrence of a daily job SKIPPED with the reason naming the exclusion, and runs the others', async () => {
    // Friday 2027-10-29 09:00 CEST is the cursor; the pass reaches Monday 09:00 CET.
    const job = await storedJob(at('2027-10-29T07:00:00Z'), '0 9 * * *', 'Europe/Berlin', {
      kind: 'CRON',
      name: 'Saturdays',
      timezone: 'Europe/Berlin',
      cron: '0 0 * * 6',
      durationSeconds: 86_400,
    });
    await materialise(fixture.deps, [job], at('2027-10-29T06:59:00Z'), at('2027-11-01T08:00:00Z'), 1);
    const docs = await executions(job);
    expect(docs.map((d) => [d.scheduledFor.toISOString(), d.status, d.reason ?? null])).toEqual([
      ['2027-10-29T07:00:00.000Z', 'QUEUED', null],
      ['2027-10-30T07:00:00.000Z', 'SKIPPED', 'excluded by "Saturdays"'],
      ['2027-10-31T08:00:00.000Z', 'QUEUED', null],
      ['2027-11-01T08:00:00.000Z', 'QUEUED', null],
    ]);
    const stored = await fixture.db.collection<JobDoc>('jobs').findOne({ _id: job._id });
    expect(stored?.scheduleCursor?.toISOString()).toBe('2027-11-02T08:00:00.000Z');
  });

  it("records an hourly job's occurrences inside one window as one record with their count, once however often the pass is repeated", async () => {
    // Saturday 2027-03-13 in New York is 05:00Z to 05:00Z the next day (summer time starts the day after).
    const job = await storedJob(at('2027-03-13T04:00:00Z'), '0 * * * *', 'America/New_York', {
      kind: 'DATES',
      name: 'Maintenance',
      timezone: 'America/New_York',
      from: '2027-03-13',
      to: '2027-03-13',
    });
    const now = at('2027-03-13T03:59:00Z');
    const horizon = at('2027-03-14T05:00:00Z');
    await Promise.all([materialise(fixture.deps, [job], now, horizon, 1), materialise(fixture.deps, [job], now, horizon, 2)]);
    const docs = await executions(job);
    const skipped = docs.filter((d) => d.status === 'SKIPPED');
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatchObject({
      skippedCount: 24,
      scheduledFor: at('2027-03-13T05:00:00Z'),
      skippedUntil: at('2027-03-14T04:00:00Z'),
      reason: '24 occurrences from 2027-03-13T05:00:00.000Z to 2027-03-14T04:00:00.000Z excluded by "Maintenance"',
    });
    expect(skippedOccurrences(job.schedule, skipped[0])).toHaveLength(24);
    expect(docs.filter((d) => d.status === 'QUEUED').map((d) => d.scheduledFor.toISOString())).toEqual([
      '2027-03-13T04:00:00.000Z',
      '2027-03-14T05:00:00.000Z',
    ]);
  });
});

const CREATE_CALENDAR = `mutation($input: CalendarInput!) { createCalendar(input: $input) { name windows { kind name from to timezone } } }`;
const UPDATE_CALENDAR = `mutation($input: CalendarInput!) { updateCalendar(input: $input) { jobsUpdated calendar { name windows { from to } } } }`;
const DELETE_CALENDAR = `mutation($name: String!) { deleteCalendar(name: $name) }`;
const CALENDARS = `query($after: String) { calendars(first: 1, after: $after) { edges { node { name } } pageInfo { hasNextPage endCursor } } }`;
const CREATE_JOB = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id nextRunAt exclusions { kind calendar name } } } }`;
const UPDATE_JOB = `mutation($input: UpdateJobInput!) { updateJob(input: $input) { job { id nextRunAt } } }`;
const NEXT_RUN = `query($id: ID!) { job(id: $id) { nextRunAt } }`;
const JOB_EXECUTIONS = `query($id: ID!) { job(id: $id) { executions(first: 100) { edges { node { status reason } } } } }`;
const PREVIEW = `query($schedule: ScheduleInput!, $exclusions: [ExclusionInput!]) { previewSchedule(schedule: $schedule, count: 3, exclusions: $exclusions) { at } }`;

describe('named calendars through the API', () => {
  let k: TestKairos;
  const token = tokenFor(uniqueName('calendars'), 'member');
  beforeAll(async () => {
    k = await startTestKairos('calendars', { roles: ['api'] });
  });
  afterAll(async () => {
    await k?.stop();
  });

  // Daily at 09:00 in Berlin from 2030 on: nextRunAt does not depend on when the test runs.
  const schedule = { cron: '0 9 * * *', timezone: 'Europe/Berlin', startAt: '2030-01-01T00:00:00Z' };
  const holidays = (to: string) => ({
    name: 'holidays',
    windows: [{ name: 'New year', from: '2030-01-01', to, timezone: 'Europe/Berlin' }],
  });

  it('is defined once, used by two jobs, and changing it changes both; deleting it while used is refused naming them', async () => {
    const created = await gqlOk(k.url, token, CREATE_CALENDAR, { input: holidays('2030-01-03') });
    expect(created.createCalendar).toEqual({
      name: 'holidays',
      windows: [{ kind: 'DATES', name: 'New year', from: '2030-01-01', to: '2030-01-03', timezone: 'Europe/Berlin' }],
    });
    const jobs = [];
    for (const name of ['payroll', 'report']) {
      const { createJob } = await gqlOk(k.url, token, CREATE_JOB, {
        input: { name, schedule, target: { handler: 'noop' }, exclusions: [{ calendar: 'holidays' }] },
      });
      expect(createJob.job).toMatchObject({
        nextRunAt: '2030-01-04T08:00:00.000Z',
        exclusions: [{ kind: 'CALENDAR', calendar: 'holidays', name: null }],
      });
      jobs.push(createJob.job.id as string);
    }

    const updated = await gqlOk(k.url, token, UPDATE_CALENDAR, { input: holidays('2030-01-10') });
    expect(updated.updateCalendar).toEqual({
      jobsUpdated: 2,
      calendar: { name: 'holidays', windows: [{ from: '2030-01-01', to: '2030-01-10' }] },
    });
    for (const id of jobs) expect((await gqlOk(k.url, token, NEXT_RUN, { id })).job.nextRunAt).toBe('2030-01-11T08:00:00.000Z');

    const refused = await gql(k.url, token, DELETE_CALENDAR, { name: 'holidays' });
    expect(refused.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    expect(refused.errors?.[0]?.message).toMatch(/"payroll", "report"|"report", "payroll"/);

    // Without the calendar, the jobs run on New Year's Day again; then it can go.
    for (const id of jobs) {
      const { updateJob } = await gqlOk(k.url, token, UPDATE_JOB, { input: { id, exclusions: [] } });
      expect(updateJob.job.nextRunAt).toBe('2030-01-01T08:00:00.000Z');
    }
    expect((await gqlOk(k.url, token, DELETE_CALENDAR, { name: 'holidays' })).deleteCalendar).toBe(true);
    expect((await gql(k.url, token, DELETE_CALENDAR, { name: 'holidays' })).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('lists calendars a page at a time, refuses a duplicate name, and previews a schedule without the excluded days', async () => {
    for (const name of ['first', 'second']) await gqlOk(k.url, token, CREATE_CALENDAR, { input: { name, windows: [] } });
    const duplicate = await gql(k.url, token, CREATE_CALENDAR, { input: { name: 'first', windows: [] } });
    expect(duplicate.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    const page1 = (await gqlOk(k.url, token, CALENDARS)).calendars;
    const page2 = (await gqlOk(k.url, token, CALENDARS, { after: page1.pageInfo.endCursor })).calendars;
    expect([...page1.edges, ...page2.edges].map((e: any) => e.node.name)).toEqual(['second', 'first']);
    expect(page2.pageInfo.hasNextPage).toBe(false);

    const weekend = [{ name: 'Weekend', cron: '0 0 * * 6', durationSeconds: 172_800 }];
    const previewFrom = async (startAt: string) =>
      (await gqlOk(k.url, token, PREVIEW, { schedule: { ...schedule, startAt }, exclusions: weekend })).previewSchedule.map(
        (p: any) => p.at,
      );
    // 2030-01-05 and 06 are a Saturday and a Sunday.
    expect(await previewFrom('2030-01-01T00:00:00Z')).toEqual([
      '2030-01-01T08:00:00.000Z',
      '2030-01-02T08:00:00.000Z',
      '2030-01-03T08:00:00.000Z',
    ]);
    expect(await previewFrom('2030-01-04T00:00:00Z')).toEqual([
      '2030-01-04T08:00:00.000Z',
      '2030-01-07T08:00:00.000Z',
      '2030-01-08T08:00:00.000Z',
    ]);
    const refusedInput = async (exclusions: object[]) =>
      (await gql(k.url, token, CREATE_JOB, { input: { name: 'x', schedule, target: { handler: 'noop' }, exclusions } })).errors?.[0]
        ?.extensions;
    expect(await refusedInput([{ calendar: 'nope' }])).toMatchObject({ code: 'BAD_USER_INPUT', field: 'exclusions[0].calendar' });
    expect(await refusedInput([{ cron: '0 0 * * *', durationSeconds: 86_400 }])).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'exclusions',
    });
    // A schedule change alone is checked against the exclusions kept: Saturdays only, inside a weekend window, never run.
    const { createJob } = await gqlOk(k.url, token, CREATE_JOB, {
      input: { name: 'weekdays', schedule: { cron: '0 8 * * *' }, target: { handler: 'noop' }, exclusions: weekend, paused: true },
    });
    const saturdays = await gql(k.url, token, UPDATE_JOB, { input: { id: createJob.job.id, schedule: { cron: '0 8 * * 6' } } });
    expect(saturdays.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'exclusions' });
    const mondays = await gqlOk(k.url, token, UPDATE_JOB, { input: { id: createJob.job.id, schedule: { cron: '0 8 * * 1' } } });
    expect(mondays.updateJob.job.id).toBe(createJob.job.id);
  });

  it('an exclusion added to an active job cancels its waiting executions it covers; taking it away materialises them again', async () => {
    const { createJob } = await gqlOk(k.url, token, CREATE_JOB, {
      input: { name: 'often', schedule: { cron: '*/5 * * * * *' }, target: { handler: 'noop' } },
    });
    const id = createJob.job.id as string;
    const statuses = async () =>
      (await gqlOk(k.url, token, JOB_EXECUTIONS, { id })).job.executions.edges.map((e: any) =>
        `${e.node.status} ${e.node.reason ?? ''}`.trim(),
      );
    // The API materialises the look-ahead (30 s) of a new job at once.
    expect(await statuses()).toContain('QUEUED');

    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const window = { name: 'Freeze', from: day(0), to: day(2), timezone: 'UTC' };
    const { updateJob } = await gqlOk(k.url, token, UPDATE_JOB, { input: { id, exclusions: [window] } });
    expect(updateJob.job.nextRunAt).toBe(`${day(3)}T00:00:00.000Z`);
    const frozen = await statuses();
    expect(frozen).not.toContain('QUEUED');
    expect(frozen).toContain('CANCELLED schedule changed');

    await gqlOk(k.url, token, UPDATE_JOB, { input: { id, exclusions: null } });
    expect(await statuses()).toContain('QUEUED');
  });
});
