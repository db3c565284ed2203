// Covers: src/changes/changeLog.ts, src/store/changeStore.ts, src/resolvers/change.resolver.ts, src/jobs/recordJobChange.ts,
// src/store/retentionStore.ts, src/scheduler/purgeExecutions.ts, src/schema/change.type.ts, src/schema/change.args.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MongoClient } from 'mongodb';
import { signDevToken } from '../../src/auth/verifyToken.js';
import { purgeExecutions } from '../../src/scheduler/purgeExecutions.js';
import { RetentionStore } from '../../src/store/retentionStore.js';
import { MONGO_URL, TEST_JWT_SECRET } from '../support/env.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { startTestKairos, uniqueName, type TestKairos } from '../support/harness.js';
import { waitUntil } from '../support/waitFor.js';

const CHANGE = `id at action actor { subject apiKeyId role } target { type id } jobId fields { field before after redacted } details`;
const CHANGES = `query($first: Int, $after: String, $last: Int, $before: String, $filter: ChangeFilter) {
  changes(first: $first, after: $after, last: $last, before: $before, filter: $filter) {
    edges { cursor node { ${CHANGE} job { id } } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;
const JOB_CHANGES = `query($id: ID!, $first: Int, $after: String) { job(id: $id) { changes(first: $first, after: $after) {
  edges { node { id action } } pageInfo { hasNextPage endCursor } } } }`;
const CREATE_JOB = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const UPDATE_JOB = `mutation($input: UpdateJobInput!) { updateJob(input: $input) { job { id } } }`;
const PAUSE = `mutation($id: ID!) { pauseJob(id: $id) { job { id } } }`;
const RESUME = `mutation($id: ID!) { resumeJob(id: $id) { job { id } } }`;
const DELETE = `mutation($id: ID!) { deleteJob(id: $id) { deletedJobId } }`;
const TRIGGER = `mutation($id: ID!, $payload: JSON) { triggerJob(id: $id, payload: $payload) { execution { id status } } }`;
const CANCEL = `mutation($id: ID!) { cancelExecution(id: $id) { execution { id status } } }`;
const RETRY = `mutation($id: ID!) { retryExecution(id: $id) { execution { id status } } }`;
const CANCEL_ALL = `mutation($filter: ExecutionFilter!) { cancelExecutions(filter: $filter) { id total } }`;
const RETRY_ALL = `mutation($filter: ExecutionFilter!) { retryExecutions(filter: $filter) { id total } }`;
const BULK = `query($id: ID!) { bulkOperation(id: $id) { status } }`;
const CREATE_KEY = `mutation($name: String!, $role: Role!) { createApiKey(name: $name, role: $role) { apiKey { id } secret } }`;
const REVOKE_KEY = `mutation($id: ID!) { revokeApiKey(id: $id) { id } }`;
const CREATE_CALENDAR = `mutation($input: CalendarInput!) { createCalendar(input: $input) { name } }`;
const UPDATE_CALENDAR = `mutation($input: CalendarInput!) { updateCalendar(input: $input) { jobsUpdated } }`;
const DELETE_CALENDAR = `mutation($name: String!) { deleteCalendar(name: $name) }`;
const BACKFILL = `mutation($id: ID!, $from: DateTime!, $to: DateTime!) { backfillJob(id: $id, from: $from, to: $to) { created } }`;
const CREATE_CHANNEL = `mutation($input: CreateAlertChannelInput!) { createAlertChannel(input: $input) { id } }`;
const DELETE_CHANNEL = `mutation($id: ID!) { deleteAlertChannel(id: $id) { id } }`;
const CREATE_RULE = `mutation($input: CreateAlertRuleInput!) { createAlertRule(input: $input) { id } }`;
const DELETE_RULE = `mutation($id: ID!) { deleteAlertRule(id: $id) { id } }`;
const ROTATE = `mutation($grace: Int) { rotateWebhookSecret(gracePeriodSeconds: $grace) { secret previousSecretExpiresAt } }`;
const REVOKE_PREVIOUS = `mutation { revokePreviousWebhookSecret { previousSecretExpiresAt } }`;

const HEADER_SECRET = 'Bearer header-secret-1';
const HEADER_SECRET_2 = 'Bearer header-secret-2';
const DAY = 86_400_000;
/** The job's changes the tests make before deleting it, newest first. */
const JOB_ACTIONS = [
  'RETRY_EXECUTIONS',
  'CANCEL_EXECUTIONS',
  'RETRY_EXECUTION',
  'CANCEL_EXECUTION',
  'TRIGGER_JOB',
  'PAUSE_JOB',
  'RESUME_JOB',
  'UPDATE_JOB',
  'CREATE_JOB',
];

type Change = {
  id: string;
  at: string;
  action: string;
  actor: { subject: string; apiKeyId: string | null; role: string };
  target: { type: string; id: string };
  jobId: string | null;
  fields: { field: string; before: unknown; after: unknown; redacted: boolean }[];
  details: Record<string, unknown> | null;
};

/**
 * Every mutation through the API records one change, as its caller (a JWT's subject, or the API
 * key), at its time, with only the fields it changed and never a secret; the history is paged by
 * cursor per job and per tenant, isolated per tenant, kept after a job's deletion, and purged with
 * the tenant's executions.
 */
describe('change history', () => {
  let k: TestKairos;
  const tenant = uniqueName('changes_a');
  const other = uniqueName('changes_b');
  const alice = signDevToken(TEST_JWT_SECRET, { tenantId: tenant, role: 'admin', subject: 'alice' });
  const viewer = signDevToken(TEST_JWT_SECRET, { tenantId: tenant, role: 'viewer', subject: 'victor' });
  const stranger = signDevToken(TEST_JWT_SECRET, { tenantId: other, role: 'admin', subject: 'mallory' });
  /** Every secret the API returned or was given: none may appear in a change. */
  const secrets: string[] = [HEADER_SECRET, HEADER_SECRET_2];
  /** The changes in the order the mutations made them. */
  const made: Change[] = [];
  let jobId = '';
  let executionId = '';
  let apiKeyId = '';

  /** The tenant's changes, every page of `size` followed forwards, newest first. */
  async function allChanges(token: string, filter?: { jobId: string }, size = 100): Promise<Change[]> {
    const found: Change[] = [];
    let after: string | null = null;
    for (;;) {
      const page: any = (await gqlOk(k.url, token, CHANGES, { first: size, after, filter })).changes;
      found.push(...page.edges.map((e: any) => e.node));
      if (!page.pageInfo.hasNextPage) return found;
      after = page.pageInfo.endCursor;
    }
  }

  /** Runs `mutation` and returns the one change it recorded (failing when it recorded none or several). */
  async function recorded<T>(mutation: () => Promise<T>): Promise<{ result: T; change: Change; started: number; ended: number }> {
    const before = (await allChanges(alice)).length;
    const started = Date.now();
    const result = await mutation();
    const ended = Date.now();
    const now = await allChanges(alice);
    expect(now.length).toBe(before + 1);
    made.push(now[0]);
    return { result, change: now[0], started, ended };
  }

  function expectAt(change: Change, started: number, ended: number): void {
    expect(Date.parse(change.at)).toBeGreaterThanOrEqual(started - 5);
    expect(Date.parse(change.at)).toBeLessThanOrEqual(ended + 5);
  }

  beforeAll(async () => {
    // The api alone: no worker runs the triggered execution, no scheduler materialises anything.
    k = await startTestKairos('changes', { roles: ['api'] });
  });
  afterAll(async () => {
    await k?.stop();
  });

  it('records createApiKey without its secret', async () => {
    const { result, change, started, ended } = await recorded(() => gqlOk(k.url, alice, CREATE_KEY, { name: 'ci', role: 'MEMBER' }));
    apiKeyId = result.createApiKey.apiKey.id;
    secrets.push(result.createApiKey.secret);
    expectAt(change, started, ended);
    expect(change).toMatchObject({
      action: 'CREATE_API_KEY',
      actor: { subject: 'alice', apiKeyId: null, role: 'ADMIN' },
      target: { type: 'API_KEY', id: apiKeyId },
      jobId: null,
      fields: [
        { field: 'name', before: null, after: 'ci', redacted: false },
        { field: 'role', before: null, after: 'MEMBER', redacted: false },
      ],
    });
  });

  it('records createJob with every field after, a header value redacted', async () => {
    const input = {
      name: 'nightly',
      schedule: { intervalSeconds: 3600 },
      target: { http: { url: 'http://127.0.0.1:9/hook', method: 'POST', headers: [{ name: 'Authorization', value: HEADER_SECRET }] } },
      payload: { n: 1 },
      paused: true,
    };
    const { result, change, started, ended } = await recorded(() => gqlOk(k.url, alice, CREATE_JOB, { input }));
    jobId = result.createJob.job.id;
    expectAt(change, started, ended);
    expect(change).toMatchObject({ action: 'CREATE_JOB', actor: { subject: 'alice' }, target: { type: 'JOB', id: jobId }, jobId });
    const fields = Object.fromEntries(change.fields.map((f) => [f.field, f]));
    expect(fields.name).toEqual({ field: 'name', before: null, after: 'nightly', redacted: false });
    expect(fields.status.after).toBe('PAUSED');
    expect(fields.payload.after).toEqual({ n: 1 });
    expect(fields.target).toEqual({
      field: 'target',
      before: null,
      after: { kind: 'HTTP', url: 'http://127.0.0.1:9/hook', method: 'POST', headers: [{ name: 'Authorization', value: '<redacted>' }] },
      redacted: true,
    });
    // No bookkeeping: the cursor, version and timestamps are not what a user changed.
    expect(Object.keys(fields)).not.toEqual(expect.arrayContaining(['version']));
    expect(Object.keys(fields).filter((f) => ['scheduleCursor', 'version', 'createdAt', 'updatedAt', 'nameLower'].includes(f))).toEqual([]);
  });

  it('records updateJob with before and after of the changed fields only', async () => {
    const input = {
      id: jobId,
      name: 'nightly report',
      timeoutSeconds: 60, // unchanged: not listed
      target: { http: { url: 'http://127.0.0.1:9/hook', method: 'POST', headers: [{ name: 'Authorization', value: HEADER_SECRET_2 }] } },
    };
    const { change } = await recorded(() => gqlOk(k.url, alice, UPDATE_JOB, { input }));
    expect(change.action).toBe('UPDATE_JOB');
    expect(change.fields.map((f) => f.field)).toEqual(['name', 'target']);
    expect(change.fields[0]).toEqual({ field: 'name', before: 'nightly', after: 'nightly report', redacted: false });
    // Only the header's secret value changed: listed, both sides redacted alike.
    expect(change.fields[1].redacted).toBe(true);
    expect(change.fields[1].before).toEqual(change.fields[1].after);
  });

  it('records nothing for a refused mutation or one that changes nothing', async () => {
    const count = (await allChanges(alice)).length;
    const refused = await gql(k.url, alice, UPDATE_JOB, { input: { id: jobId, timeoutSeconds: -1 } });
    expect(refused.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    await gqlOk(k.url, alice, UPDATE_JOB, { input: { id: jobId, name: 'nightly report' } });
    await gqlOk(k.url, alice, PAUSE, { id: jobId }); // already PAUSED
    expect((await allChanges(alice)).length).toBe(count);
  });

  it('records resumeJob and pauseJob as the status they changed', async () => {
    const resumed = await recorded(() => gqlOk(k.url, alice, RESUME, { id: jobId }));
    expect(resumed.change).toMatchObject({
      action: 'RESUME_JOB',
      fields: [{ field: 'status', before: 'PAUSED', after: 'ACTIVE', redacted: false }],
    });
    const paused = await recorded(() => gqlOk(k.url, alice, PAUSE, { id: jobId }));
    expect(paused.change).toMatchObject({
      action: 'PAUSE_JOB',
      fields: [{ field: 'status', before: 'ACTIVE', after: 'PAUSED', redacted: false }],
    });
  });

  it('records triggerJob as the API key that called it, with the payload override', async () => {
    const key = secrets[2];
    const { result, change } = await recorded(() => gqlOk(k.url, key, TRIGGER, { id: jobId, payload: { n: 2 } }));
    executionId = result.triggerJob.execution.id;
    expect(change).toMatchObject({
      action: 'TRIGGER_JOB',
      actor: { subject: `apiKey:${apiKeyId}`, apiKeyId, role: 'MEMBER' },
      target: { type: 'EXECUTION', id: executionId },
      jobId,
      fields: [{ field: 'status', before: null, after: 'QUEUED', redacted: false }],
      details: { payload: { n: 2 } },
    });
  });

  it('records cancelExecution and retryExecution as the status they changed', async () => {
    const cancelled = await recorded(() => gqlOk(k.url, alice, CANCEL, { id: executionId }));
    expect(cancelled.change).toMatchObject({
      action: 'CANCEL_EXECUTION',
      target: { type: 'EXECUTION', id: executionId },
      jobId,
      fields: [{ field: 'status', before: 'QUEUED', after: 'CANCELLED' }],
    });
    const retried = await recorded(() => gqlOk(k.url, alice, RETRY, { id: executionId }));
    expect(retried.change).toMatchObject({
      action: 'RETRY_EXECUTION',
      target: { type: 'EXECUTION', id: executionId },
      jobId,
      fields: [{ field: 'status', before: 'CANCELLED', after: 'QUEUED' }],
    });
  });

  it('records a bulk operation once, at its start, with its filter and count', async () => {
    const cancelAll = await recorded(() => gqlOk(k.url, alice, CANCEL_ALL, { filter: { jobId } }));
    const operation = cancelAll.result.cancelExecutions;
    expect(operation.total).toBe(1);
    expect(cancelAll.change).toMatchObject({
      action: 'CANCEL_EXECUTIONS',
      target: { type: 'BULK_OPERATION', id: operation.id },
      jobId,
      details: { filter: { jobId, statuses: ['SCHEDULED', 'QUEUED', 'RETRYING', 'RUNNING'] } },
    });
    expect(Object.fromEntries(cancelAll.change.fields.map((f) => [f.field, f.after]))).toMatchObject({ kind: 'CANCEL', total: 1 });
    await waitUntil(
      'the bulk cancel to end',
      async () => ((await gqlOk(k.url, alice, BULK, { id: operation.id })).bulkOperation.status === 'SUCCEEDED' ? true : undefined),
      15_000,
    );
    // The cancel of each execution by the runner records nothing more.
    expect((await allChanges(alice))[0].id).toBe(cancelAll.change.id);
    const retryAll = await recorded(() => gqlOk(k.url, alice, RETRY_ALL, { filter: { jobId, statuses: ['CANCELLED'] } }));
    expect(retryAll.result.retryExecutions.total).toBe(1);
    expect(retryAll.change).toMatchObject({ action: 'RETRY_EXECUTIONS', jobId, details: { filter: { jobId, statuses: ['CANCELLED'] } } });
  });

  it('records the webhook secret rotation and the revoke of the previous one, never a secret', async () => {
    const rotated = await recorded(() => gqlOk(k.url, alice, ROTATE, { grace: 60 }));
    secrets.push(rotated.result.rotateWebhookSecret.secret);
    expect(rotated.change).toMatchObject({
      action: 'ROTATE_WEBHOOK_SECRET',
      target: { type: 'TENANT', id: tenant },
      details: { gracePeriodSeconds: 60 },
    });
    const fields = Object.fromEntries(rotated.change.fields.map((f) => [f.field, f]));
    expect(fields.webhookSecret).toEqual({ field: 'webhookSecret', before: '<redacted>', after: '<redacted>', redacted: true });
    expect(fields.previousWebhookSecret).toEqual({ field: 'previousWebhookSecret', before: null, after: '<redacted>', redacted: true });
    expect(fields.previousWebhookSecretExpiresAt.after).toBe(rotated.result.rotateWebhookSecret.previousSecretExpiresAt);
    const revoked = await recorded(() => gqlOk(k.url, alice, REVOKE_PREVIOUS));
    expect(revoked.change).toMatchObject({
      action: 'REVOKE_PREVIOUS_WEBHOOK_SECRET',
      fields: [
        { field: 'previousWebhookSecret', before: '<redacted>', after: null, redacted: true },
        { field: 'previousWebhookSecretExpiresAt', after: null },
      ],
    });
  });

  it('records createCalendar, updateCalendar and deleteCalendar with the windows before and after', async () => {
    const window = (from: string, to: string) => ({ name: 'holiday', from, to, timezone: 'Europe/Berlin' });
    const created = await recorded(() =>
      gqlOk(k.url, alice, CREATE_CALENDAR, { input: { name: 'holidays', windows: [window('2030-12-24', '2030-12-27')] } }),
    );
    expect(created.change).toMatchObject({ action: 'CREATE_CALENDAR', target: { type: 'CALENDAR', id: 'holidays' }, jobId: null });
    expect(created.change.fields.map((f) => f.field)).toEqual(['name', 'windows']);
    const updated = await recorded(() =>
      gqlOk(k.url, alice, UPDATE_CALENDAR, { input: { name: 'holidays', windows: [window('2030-12-24', '2030-12-28')] } }),
    );
    expect(updated.change).toMatchObject({ action: 'UPDATE_CALENDAR', details: { jobsUpdated: 0 } });
    expect(updated.change.fields.map((f) => f.field)).toEqual(['windows']);
    expect(JSON.stringify(updated.change.fields[0].before)).not.toEqual(JSON.stringify(updated.change.fields[0].after));
    // The same windows again change nothing, so they record nothing.
    const count = (await allChanges(alice)).length;
    await gqlOk(k.url, alice, UPDATE_CALENDAR, { input: { name: 'holidays', windows: [window('2030-12-24', '2030-12-28')] } });
    expect((await allChanges(alice)).length).toBe(count);
    const deleted = await recorded(() => gqlOk(k.url, alice, DELETE_CALENDAR, { name: 'holidays' }));
    expect(deleted.change).toMatchObject({ action: 'DELETE_CALENDAR', target: { type: 'CALENDAR', id: 'holidays' } });
    expect(deleted.change.fields.find((f) => f.field === 'name')).toMatchObject({ before: 'holidays', after: null });
  });

  it("records backfillJob with its range and what it created, in the job's history", async () => {
    const job = (
      await recorded(() =>
        gqlOk(k.url, alice, CREATE_JOB, {
          input: { name: uniqueName('hourly'), schedule: { cron: '0 * * * *' }, target: { handler: 'noop' } },
        }),
      )
    ).result.createJob.job;
    const to = new Date();
    const from = new Date(to.getTime() - 3 * 3_600_000);
    const { result, change } = await recorded(() => gqlOk(k.url, alice, BACKFILL, { id: job.id, from, to }));
    expect(result.backfillJob.created).toBe(3);
    expect(change).toMatchObject({
      action: 'BACKFILL_JOB',
      target: { type: 'JOB', id: job.id },
      jobId: job.id,
      fields: [],
      details: { from: from.toISOString(), to: to.toISOString(), created: 3, existing: 0 },
    });
    // A repeat creates nothing, so it records nothing.
    const before = (await allChanges(alice)).length;
    expect((await gqlOk(k.url, alice, BACKFILL, { id: job.id, from, to })).backfillJob.created).toBe(0);
    expect((await allChanges(alice)).length).toBe(before);
  });

  it('records alert channels and rules as they are created and deleted; channels for ADMINs only', async () => {
    const url = 'https://hooks.example.com/kairos?token=in-the-url';
    const channel = await recorded(() => gqlOk(k.url, alice, CREATE_CHANNEL, { input: { name: 'ops', url } }));
    const channelId = channel.result.createAlertChannel.id;
    expect(channel.change).toMatchObject({ action: 'CREATE_ALERT_CHANNEL', target: { type: 'ALERT_CHANNEL', id: channelId }, jobId: null });
    expect(channel.change.fields.find((f) => f.field === 'url')).toMatchObject({ before: null, after: url });
    const rule = await recorded(() =>
      gqlOk(k.url, alice, CREATE_RULE, { input: { channelId, kind: 'CONSECUTIVE_FAILURES', threshold: 3 } }),
    );
    const ruleId = rule.result.createAlertRule.id;
    expect(rule.change).toMatchObject({ action: 'CREATE_ALERT_RULE', target: { type: 'ALERT_RULE', id: ruleId } });
    expect(rule.change.fields.find((f) => f.field === 'threshold')).toMatchObject({ before: null, after: 3 });
    const ruleGone = await recorded(() => gqlOk(k.url, alice, DELETE_RULE, { id: ruleId }));
    expect(ruleGone.change).toMatchObject({ action: 'DELETE_ALERT_RULE', target: { id: ruleId } });
    const channelGone = await recorded(() => gqlOk(k.url, alice, DELETE_CHANNEL, { id: channelId }));
    expect(channelGone.change).toMatchObject({ action: 'DELETE_ALERT_CHANNEL', target: { id: channelId } });
    // A channel's URL may hold the receiver's credentials: a VIEWER reads the rules' records, not the channels'.
    const seen = (await allChanges(viewer)).map((c) => c.action);
    expect(seen).toEqual(expect.arrayContaining(['CREATE_ALERT_RULE', 'DELETE_ALERT_RULE']));
    expect(seen).not.toContain('CREATE_ALERT_CHANNEL');
    expect(seen).not.toContain('DELETE_ALERT_CHANNEL');
  });

  it('records revokeApiKey', async () => {
    const { change } = await recorded(() => gqlOk(k.url, alice, REVOKE_KEY, { id: apiKeyId }));
    expect(change).toMatchObject({
      action: 'REVOKE_API_KEY',
      target: { type: 'API_KEY', id: apiKeyId },
      fields: [
        { field: 'name', before: 'ci', after: null },
        { field: 'role', before: 'MEMBER', after: null },
      ],
    });
  });

  it("lists a job's changes in Job.changes, paged by cursor, newest first", async () => {
    const ofJob = made.filter((c) => c.jobId === jobId).reverse();
    expect(ofJob.map((c) => c.action)).toEqual(JOB_ACTIONS);
    const seen: string[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const page: any = (await gqlOk(k.url, viewer, JOB_CHANGES, { id: jobId, first: 4, after })).job.changes;
      seen.push(...page.edges.map((e: any) => e.node.id));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen).toEqual(ofJob.map((c) => c.id));
  });

  it("lists the tenant's changes paged forwards and backwards; a VIEWER does not see the API key and secret ones", async () => {
    const newestFirst = [...made].reverse();
    expect((await allChanges(alice, undefined, 3)).map((c) => c.id)).toEqual(newestFirst.map((c) => c.id));
    const firstPage: any = (await gqlOk(k.url, alice, CHANGES, { first: 5 })).changes;
    const back: any = (await gqlOk(k.url, alice, CHANGES, { last: 2, before: firstPage.edges[4].cursor })).changes;
    expect(back.edges.map((e: any) => e.node.id)).toEqual(newestFirst.slice(2, 4).map((c) => c.id));
    expect(back.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
    const seenByViewer = await allChanges(viewer);
    expect(seenByViewer.map((c) => c.id)).toEqual(
      newestFirst.filter((c) => !['API_KEY', 'TENANT', 'ALERT_CHANNEL'].includes(c.target.type)).map((c) => c.id),
    );
  });

  it('never holds a secret', async () => {
    const text = JSON.stringify(await allChanges(alice));
    for (const secret of secrets) expect(text).not.toContain(secret);
    const mongo = await MongoClient.connect(MONGO_URL);
    try {
      const stored = JSON.stringify(await mongo.db(k.dbName).collection('changes').find({}).toArray());
      for (const secret of secrets) expect(stored).not.toContain(secret);
    } finally {
      await mongo.close();
    }
  });

  it("is another tenant's to read only: none of its changes, nor its job's", async () => {
    expect(await allChanges(stranger)).toEqual([]);
    expect(await allChanges(stranger, { jobId })).toEqual([]);
    expect((await gqlOk(k.url, stranger, JOB_CHANGES, { id: jobId })).job).toBeNull();
  });

  it("keeps a deleted job's changes, readable through the tenant's changes filtered by job", async () => {
    const { change } = await recorded(() => gqlOk(k.url, alice, DELETE, { id: jobId }));
    expect(change).toMatchObject({ action: 'DELETE_JOB', target: { type: 'JOB', id: jobId }, jobId });
    expect(change.fields.find((f) => f.field === 'name')).toEqual({
      field: 'name',
      before: 'nightly report',
      after: null,
      redacted: false,
    });
    expect((await gqlOk(k.url, alice, JOB_CHANGES, { id: jobId })).job).toBeNull();
    const ofJob = await allChanges(alice, { jobId });
    expect(ofJob.map((c) => c.action)).toEqual(['DELETE_JOB', ...JOB_ACTIONS]);
    const page: any = (await gqlOk(k.url, alice, CHANGES, { first: 1, filter: { jobId } })).changes;
    expect(page.edges[0].node.job).toBeNull();
    expect((await gql(k.url, alice, CHANGES, { filter: { jobId: 'not-an-id' } })).data?.changes.edges).toEqual([]);
  });

  it("is purged with the executions, by each tenant's retention", async () => {
    await gqlOk(k.url, stranger, CREATE_JOB, {
      input: { name: 'kept', schedule: { intervalSeconds: 3600 }, target: { handler: 'noop' }, paused: true },
    });
    const mongo = await MongoClient.connect(MONGO_URL);
    try {
      const retention = new RetentionStore(mongo.db(k.dbName));
      const tenants = async () => [
        { tenantId: tenant, executionRetentionDays: 30 },
        { tenantId: other, executionRetentionDays: 90 },
      ];
      // 29 days on, nothing is old enough; 31 days on, the first tenant's changes go and the other's stay.
      await purgeExecutions({ retention, tenants }, new Date(Date.now() + 29 * DAY), { pauseMs: 0 });
      expect((await allChanges(alice)).length).toBe(made.length);
      const { deleted } = await purgeExecutions({ retention, tenants }, new Date(Date.now() + 31 * DAY), { pauseMs: 0, batchSize: 4 });
      expect(deleted).toBeGreaterThanOrEqual(made.length);
      expect(await allChanges(alice)).toEqual([]);
      expect((await allChanges(stranger)).map((c) => c.action)).toEqual(['CREATE_JOB']);
    } finally {
      await mongo.close();
    }
  });
});
