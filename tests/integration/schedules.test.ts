// Covers: src/domain/schedule/cronOccurrences.ts, src/resolvers/schedule.resolver.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from 'graphql-ws';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { EventCollector, wsClient } from '../support/subscriptions.js';
import { waitUntil } from '../support/waitFor.js';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id status nextRunAt } } }`;
const JOB = `query($id: ID!) { job(id: $id) { status nextRunAt lastRunAt executions(first: 100) { edges { node { status scheduledFor trigger } } } } }`;
const SUBSCRIBE = `subscription($jobId: ID) { executionUpdated(jobId: $jobId, statuses: [SUCCEEDED]) { status execution { scheduledFor } } }`;

describe('schedules fire when a careful user expects', () => {
  let k: TestKairos;
  let client: Client;
  const token = tokenFor(uniqueName('sched'), 'member');

  beforeAll(async () => {
    k = await startTestKairos('schedules');
    client = wsClient(k.url, token);
  });
  afterAll(async () => {
    await client?.dispose();
    await k?.stop();
  });

  async function create(input: Record<string, unknown>) {
    return (await gqlOk(k.url, token, CREATE, { input: { name: 'j', target: { handler: 'noop' }, ...input } })).createJob.job;
  }

  it('holds the first occurrence until startAt, and completes the job after its last occurrence before endAt', async () => {
    const startAt = new Date(Math.ceil((Date.now() + 2000) / 1000) * 1000);
    const endAt = new Date(startAt.getTime() + 2500);
    const job = await create({ schedule: { intervalSeconds: 1, startAt: startAt.toISOString(), endAt: endAt.toISOString() } });
    // Every occurrence is inside the look-ahead window, so all are materialised at once and the job is complete.
    expect(job).toMatchObject({ status: 'COMPLETED', nextRunAt: null });
    const events = new EventCollector<any>(client, SUBSCRIBE, { jobId: job.id });
    await events.waitFor((items) => items.length >= 3, 15_000);
    events.stop();
    // lastRunAt is written within RunStore's jobRunsEveryMs (5 s) of the start.
    const data = await waitUntil(
      'lastRunAt to be written',
      async () => {
        const read = await gqlOk(k.url, token, JOB, { id: job.id });
        return read.job.lastRunAt ? read : undefined;
      },
      10_000,
    );
    expect(data.job.status).toBe('COMPLETED');
    expect(data.job.nextRunAt).toBeNull();
    expect(Date.parse(data.job.lastRunAt)).toBeGreaterThanOrEqual(startAt.getTime() + 2000);
    const times = data.job.executions.edges.map((e: any) => e.node.scheduledFor).sort();
    expect(times).toEqual([0, 1000, 2000].map((ms) => new Date(startAt.getTime() + ms).toISOString()));
  });

  it('records jitter in scheduledFor, within [nominal, nominal + jitterSeconds]', async () => {
    const runAt = new Date(Math.ceil((Date.now() + 1500) / 1000) * 1000);
    const job = await create({ schedule: { runAt: runAt.toISOString(), jitterSeconds: 2 } });
    const events = new EventCollector<any>(client, SUBSCRIBE, { jobId: job.id });
    const [event] = await events.waitFor((items) => items.length >= 1, 10_000);
    events.stop();
    const offset = Date.parse(event.executionUpdated.execution.scheduledFor) - runAt.getTime();
    expect(offset).toBeGreaterThanOrEqual(0);
    expect(offset).toBeLessThanOrEqual(2000);
  });

  it('runs a 6-field (second-level) cron on its seconds', async () => {
    const job = await create({ schedule: { cron: '*/2 * * * * *' } });
    const events = new EventCollector<any>(client, SUBSCRIBE, { jobId: job.id });
    const items = await events.waitFor((all) => all.length >= 2, 10_000);
    events.stop();
    for (const e of items) {
      const at = new Date(e.executionUpdated.execution.scheduledFor);
      expect(at.getUTCMilliseconds()).toBe(0);
      expect(at.getUTCSeconds() % 2).toBe(0);
    }
  });

  it('previews a schedule across a DST change without creating anything', async () => {
    const preview = await gqlOk(
      k.url,
      token,
      `query { previewSchedule(schedule: { cron: "30 2 * * *", timezone: "America/New_York", startAt: "2027-03-12T12:00:00Z" }, count: 3) { at local } }`,
    );
    expect(preview.previewSchedule).toEqual([
      { at: '2027-03-13T07:30:00.000Z', local: '2027-03-13T02:30:00.000-05:00' },
      // 02:30 does not exist on 14 March 2027: it runs once, at the first valid instant after the gap.
      { at: '2027-03-14T07:00:00.000Z', local: '2027-03-14T03:00:00.000-04:00' },
      { at: '2027-03-15T06:30:00.000Z', local: '2027-03-15T02:30:00.000-04:00' },
    ]);
    const fallBack = await gqlOk(
      k.url,
      token,
      `query { previewSchedule(schedule: { cron: "30 1 * * *", timezone: "America/New_York", startAt: "2027-11-06T12:00:00Z" }, count: 2) { at local } }`,
    );
    // 01:30 happens twice on 7 November 2027: it runs once, at the first.
    expect(fallBack.previewSchedule).toEqual([
      { at: '2027-11-07T05:30:00.000Z', local: '2027-11-07T01:30:00.000-04:00' },
      { at: '2027-11-08T06:30:00.000Z', local: '2027-11-08T01:30:00.000-05:00' },
    ]);
    const bad = await gql(k.url, token, `query { previewSchedule(schedule: { cron: "0 0 30 2 *" }) { at } }`);
    expect(bad.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(bad.errors?.[0].message).toMatch(/never/);
    const tooMany = await gql(k.url, token, `query { previewSchedule(schedule: { intervalSeconds: 60 }, count: 101) { at } }`);
    expect(tooMany.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect((await gqlOk(k.url, token, `{ jobs { totalCount } }`)).jobs.totalCount).toBe(3);
  });
});
