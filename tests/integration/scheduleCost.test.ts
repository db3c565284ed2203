// Covers: src/api/queryLimits.ts, src/quotas/scheduleSearchBudget.ts, src/resolvers/schedule.resolver.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';

/**
 * Schedule math runs on the API's main thread, so no request may make it long: a cron rarer than once
 * in 8 years is refused wherever a schedule is given, and the cost limit prices every occurrence a
 * request asks for.
 */

const ZONES = ['America/New_York', 'Europe/Paris', 'Asia/Tokyo', 'Australia/Sydney', 'America/Sao_Paulo'];
/** A fifth Monday in February: only in a leap year that starts February on a Monday, 28 years and more apart. */
const RARE = '0 0 * 2 1#5';

function previews(aliases: number, cron: string): string {
  const fields = Array.from(
    { length: aliases },
    (_, i) => `p${i}: previewSchedule(count: 100, schedule: { cron: "${cron}", timezone: "${ZONES[i % ZONES.length]}" }) { at local }`,
  );
  return `{ ${fields.join(' ')} }`;
}

describe('schedule math is bounded per request', () => {
  let k: TestKairos;
  const tenant = uniqueName('schedcost');
  const viewer = tokenFor(tenant, 'viewer');
  const member = tokenFor(tenant, 'member');

  beforeAll(async () => {
    // The process's own budget is raised: these tests ask for more than a second's worth on purpose.
    k = await startTestKairos('schedcost', { roles: ['api'], env: { SCHEDULE_SEARCHES_PER_SECOND_PER_PROCESS: '100000' } });
  });
  afterAll(async () => {
    await k?.stop();
  });

  it('refuses previews that would hold the main thread (three zones, count 100, a cron 28 to 40 years apart) as BAD_USER_INPUT', async () => {
    // Three previews of 100 are over the cost limit, whatever the cron; one is refused for its cron.
    const three = await gql(k.url, viewer, previews(3, RARE));
    expect(three.data ?? undefined).toBeUndefined();
    expect(three.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(three.errors?.[0].message).toMatch(/^The query costs \d+/);
    const response = await gql(k.url, viewer, previews(1, RARE));
    expect(response.data ?? null).toBeNull();
    expect(response.errors).toHaveLength(1);
    expect(response.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(response.errors?.[0].message).toMatch(/fires less than once in 8 years/);
  });

  it('answers two previews of 100 occurrences of an allowed cron and refuses three in one request by the cost limit', async () => {
    const data = await gqlOk(k.url, viewer, previews(2, '0 9 * * 1-5'));
    expect(Object.values(data).map((items) => (items as unknown[]).length)).toEqual([100, 100]);
    const three = await gql(k.url, viewer, previews(3, '0 9 * * 1-5'));
    expect(three.data ?? undefined).toBeUndefined();
    expect(three.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(three.errors?.[0].message).toMatch(/^The query costs \d+; at most 20000 is allowed/);
  });

  it("rate-limits a tenant's searches (a burst of 500 at the default 3000 a minute), not another tenant's", async () => {
    const loud = tokenFor(uniqueName('schedcost-loud'), 'viewer');
    for (let i = 0; i < 5; i++) await gqlOk(k.url, loud, previews(1, '0 9 * * 1-5'));
    const refused = await gql(k.url, loud, previews(1, '0 9 * * 1-5'));
    expect(refused.errors?.[0].extensions?.code).toBe('RATE_LIMITED');
    expect(refused.errors?.[0].message).toMatch(
      /^100 schedule searches at once exceed the tenant's limit of 3000 per minute; retry after \d+ s$/,
    );
    expect(refused.errors?.[0].extensions?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    // The other tenant (whose budget the earlier tests used a little of) is not affected.
    expect((await gqlOk(k.url, viewer, previews(1, '0 9 * * 1-5'))).p0).toHaveLength(100);
  });

  it('refuses 30 aliased previews of 100 occurrences by the cost limit, before anything runs', async () => {
    const response = await gql(k.url, viewer, previews(30, '0 9 * * 1-5'));
    expect(response.data ?? undefined).toBeUndefined();
    expect(response.errors).toHaveLength(1);
    expect(response.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(response.errors?.[0].message).toMatch(/^The query costs \d+; at most 20000 is allowed/);
  });

  it('prices nextRunAt as a schedule search: four aliased pages of 100 jobs asking for it are refused', async () => {
    const page = (i: number) => `j${i}: jobs(first: 100) { edges { node { id nextRunAt } } }`;
    const refused = await gql(k.url, viewer, `{ ${[0, 1, 2, 3].map(page).join(' ')} }`);
    expect(refused.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(refused.errors?.[0].message).toMatch(/^The query costs \d+/);
    // The same pages without nextRunAt cost a few hundred.
    const plain = await gql(k.url, viewer, `{ ${[0, 1, 2, 3].map((i) => `j${i}: jobs(first: 100) { edges { node { id } } }`).join(' ')} }`);
    expect(plain.errors).toBeUndefined();
  });

  it('refuses the rare cron in createJob and updateJob, naming the field and the limit', async () => {
    const create = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
    const refused = await gql(k.url, member, create, { input: { name: 'rare', schedule: { cron: RARE }, target: { handler: 'noop' } } });
    expect(refused.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'schedule.cron' });
    expect(refused.errors?.[0].message).toMatch(/fires less than once in 8 years/);

    const created = await gqlOk(k.url, member, create, {
      input: { name: 'leap day', paused: true, schedule: { cron: '0 0 29 2 *' }, target: { handler: 'noop' } },
    });
    const update = `mutation($input: UpdateJobInput!) { updateJob(input: $input) { job { schedule { cron } } } }`;
    const updated = await gql(k.url, member, update, {
      input: { id: created.createJob.job.id, schedule: { cron: RARE, timezone: 'Europe/Paris' } },
    });
    expect(updated.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'schedule.cron' });
    expect(updated.errors?.[0].message).toMatch(/fires less than once in 8 years/);

    const job = await gqlOk(k.url, member, `query($id: ID!) { job(id: $id) { schedule { cron } } }`, { id: created.createJob.job.id });
    expect(job.job.schedule.cron).toBe('0 0 29 2 *');
  });
});

describe('schedule searches are bounded per process, over every tenant', () => {
  let k: TestKairos;

  beforeAll(async () => {
    k = await startTestKairos('schedproc', { roles: ['api'], env: { SCHEDULE_SEARCHES_PER_SECOND_PER_PROCESS: '100' } });
  });
  afterAll(async () => {
    await k?.stop();
  });

  it("refuses previews past the process's budget even when each tenant is inside its own", async () => {
    // Five tenants, one preview of 100 each: every tenant is far inside its 500-search burst, the process's is 100.
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => gql(k.url, tokenFor(uniqueName(`schedproc-${i}`), 'viewer'), previews(1, '0 9 * * 1-5'))),
    );
    const refused = answers.filter((a) => a.errors?.[0].extensions?.code === 'RATE_LIMITED');
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(answers.length - refused.length).toBeGreaterThanOrEqual(1);
    expect(refused[0].errors?.[0].message).toMatch(
      /^The server is answering its limit of 100 schedule searches a second for all tenants; retry after \d+ s$/,
    );
    expect(refused[0].errors?.[0].extensions?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });
});
