// Covers: src/domain/role.ts, src/resolvers/apiKey.resolver.ts, src/resolvers/auth-checker.ts, src/resolvers/httpHeader.resolver.ts,
// src/resolvers/index.ts, src/resolvers/node.resolver.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from 'graphql-ws';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gql, gqlOk, type GraphQLResponse } from '../support/graphqlClient.js';
import { EventCollector, triggerUntilSeen, wsClient } from '../support/subscriptions.js';
import { schemaOperations } from '../support/schemaOperations.js';
import { HIDDEN_HEADER_VALUE as HIDDEN } from '../../src/domain/headerVisibility.js';

type RoleName = 'VIEWER' | 'MEMBER' | 'ADMIN';
const RANK: Record<RoleName, number> = { VIEWER: 0, MEMBER: 1, ADMIN: 2 };

/** Ids an operation works on: a job and an execution of the tenant, and an API key to revoke. */
interface Ids {
  jobId: string;
  executionId: string;
  apiKeyId: string;
  /** Made by retryExecutions, read by bulkOperation. */
  bulkOperationId?: string;
  /** A name for createCalendar, then updateCalendar and deleteCalendar, new for each run. */
  calendarName: string;
  /** An alert channel and a rule on it, for the alert operations. */
  alertChannelId: string;
  alertRuleId: string;
}

interface Operation {
  name: string;
  /** The least role allowed to run it. */
  needs: RoleName;
  run(url: string, token: string, ids: Ids): Promise<GraphQLResponse>;
  /** For an allowed call: keeps ids it made for the operations after it. */
  after?(data: Record<string, any>, ids: Ids): void;
}

const JOB_INPUT = { name: 'matrix', schedule: { intervalSeconds: 3600 }, target: { handler: 'noop' }, paused: true };
const SINCE = new Date(Date.now() - 3600_000).toISOString();

/**
 * Every query and mutation of the contract, in an order where each allowed call leaves what the
 * next one needs (a job to update, pause, resume and trigger, an execution to cancel then retry, a
 * key to revoke; the job is deleted last).
 */
const OPERATIONS: Operation[] = [
  { name: 'viewer', needs: 'VIEWER', run: (u, t) => gql(u, t, '{ viewer { tenantId role quota { jobCount } } }') },
  { name: 'node', needs: 'VIEWER', run: (u, t, ids) => gql(u, t, 'query($id: ID!) { node(id: $id) { id } }', { id: ids.jobId }) },
  { name: 'job', needs: 'VIEWER', run: (u, t, ids) => gql(u, t, 'query($id: ID!) { job(id: $id) { id name } }', { id: ids.jobId }) },
  { name: 'jobs', needs: 'VIEWER', run: (u, t) => gql(u, t, '{ jobs(first: 5) { totalCount edges { node { id } } } }') },
  {
    name: 'execution',
    needs: 'VIEWER',
    run: (u, t, ids) => gql(u, t, 'query($id: ID!) { execution(id: $id) { id status } }', { id: ids.executionId }),
  },
  { name: 'executions', needs: 'VIEWER', run: (u, t) => gql(u, t, '{ executions(first: 5) { edges { node { id } } } }') },
  {
    name: 'executionStats',
    needs: 'VIEWER',
    run: (u, t) => gql(u, t, 'query($since: DateTime!) { executionStats(since: $since) { total } }', { since: SINCE }),
  },
  {
    name: 'previewSchedule',
    needs: 'VIEWER',
    run: (u, t) => gql(u, t, '{ previewSchedule(schedule: { intervalSeconds: 60 }, count: 2) { at } }'),
  },
  { name: 'apiKeys', needs: 'ADMIN', run: (u, t) => gql(u, t, '{ apiKeys { id prefix } }') },
  { name: 'changes', needs: 'VIEWER', run: (u, t) => gql(u, t, '{ changes(first: 5) { edges { node { id action } } } }') },
  {
    name: 'createJob',
    needs: 'MEMBER',
    run: (u, t) => gql(u, t, 'mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }', { input: JOB_INPUT }),
    after: (data, ids) => (ids.jobId = data.createJob.job.id),
  },
  {
    name: 'updateJob',
    needs: 'MEMBER',
    run: (u, t, ids) =>
      gql(u, t, 'mutation($input: UpdateJobInput!) { updateJob(input: $input) { job { id } } }', {
        input: { id: ids.jobId, name: 'renamed' },
      }),
  },
  {
    name: 'pauseJob',
    needs: 'MEMBER',
    run: (u, t, ids) => gql(u, t, 'mutation($id: ID!) { pauseJob(id: $id) { job { status } } }', { id: ids.jobId }),
  },
  {
    name: 'resumeJob',
    needs: 'MEMBER',
    run: (u, t, ids) => gql(u, t, 'mutation($id: ID!) { resumeJob(id: $id) { job { status } } }', { id: ids.jobId }),
  },
  {
    name: 'triggerJob',
    needs: 'MEMBER',
    run: (u, t, ids) => gql(u, t, 'mutation($id: ID!) { triggerJob(id: $id, payload: { n: 1 }) { execution { id } } }', { id: ids.jobId }),
    after: (data, ids) => (ids.executionId = data.triggerJob.execution.id),
  },
  {
    name: 'backfillJob',
    needs: 'MEMBER',
    run: (u, t, ids) =>
      gql(
        u,
        t,
        'mutation($id: ID!) { backfillJob(id: $id, from: "2026-03-01T00:00:00Z", to: "2026-03-01T00:10:00Z", dryRun: true) { created } }',
        {
          id: ids.jobId,
        },
      ),
  },
  {
    name: 'cancelExecution',
    needs: 'MEMBER',
    run: (u, t, ids) => gql(u, t, 'mutation($id: ID!) { cancelExecution(id: $id) { execution { status } } }', { id: ids.executionId }),
  },
  {
    name: 'retryExecution',
    needs: 'MEMBER',
    run: (u, t, ids) => gql(u, t, 'mutation($id: ID!) { retryExecution(id: $id) { execution { status } } }', { id: ids.executionId }),
  },
  {
    name: 'retryExecutions',
    needs: 'MEMBER',
    run: (u, t, ids) => gql(u, t, 'mutation($job: ID!) { retryExecutions(filter: { jobId: $job }) { id total } }', { job: ids.jobId }),
    after: (data, ids) => (ids.bulkOperationId = data.retryExecutions.id),
  },
  {
    name: 'cancelExecutions',
    needs: 'MEMBER',
    run: (u, t, ids) =>
      gql(u, t, 'mutation($job: ID!) { cancelExecutions(filter: { jobId: $job, statuses: [SCHEDULED] }) { id total } }', {
        job: ids.jobId,
      }),
  },
  {
    name: 'bulkOperation',
    needs: 'VIEWER',
    run: (u, t, ids) => gql(u, t, 'query($id: ID!) { bulkOperation(id: $id) { id status } }', { id: ids.bulkOperationId ?? ids.jobId }),
  },
  { name: 'calendars', needs: 'VIEWER', run: (u, t) => gql(u, t, '{ calendars(first: 5) { edges { node { name } } } }') },
  {
    name: 'createCalendar',
    needs: 'MEMBER',
    run: (u, t, ids) =>
      gql(u, t, 'mutation($name: String!) { createCalendar(input: { name: $name, windows: [] }) { name } }', { name: ids.calendarName }),
  },
  {
    name: 'updateCalendar',
    needs: 'MEMBER',
    run: (u, t, ids) =>
      gql(u, t, 'mutation($name: String!) { updateCalendar(input: { name: $name, windows: [] }) { jobsUpdated } }', {
        name: ids.calendarName,
      }),
  },
  {
    name: 'deleteCalendar',
    needs: 'MEMBER',
    run: (u, t, ids) => gql(u, t, 'mutation($name: String!) { deleteCalendar(name: $name) }', { name: ids.calendarName }),
  },
  {
    name: 'createApiKey',
    needs: 'ADMIN',
    run: (u, t) => gql(u, t, 'mutation { createApiKey(name: "made in the matrix", role: VIEWER) { secret apiKey { id } } }'),
    after: (data, ids) => (ids.apiKeyId = data.createApiKey.apiKey.id),
  },
  {
    name: 'revokeApiKey',
    needs: 'ADMIN',
    run: (u, t, ids) => gql(u, t, 'mutation($id: ID!) { revokeApiKey(id: $id) { id } }', { id: ids.apiKeyId }),
  },
  { name: 'rotateWebhookSecret', needs: 'ADMIN', run: (u, t) => gql(u, t, 'mutation { rotateWebhookSecret { secret } }') },
  {
    name: 'revokePreviousWebhookSecret',
    needs: 'ADMIN',
    run: (u, t) => gql(u, t, 'mutation { revokePreviousWebhookSecret { previousSecretExpiresAt } }'),
  },
  { name: 'alertChannels', needs: 'ADMIN', run: (u, t) => gql(u, t, '{ alertChannels { id url } }') },
  { name: 'alertRules', needs: 'VIEWER', run: (u, t) => gql(u, t, '{ alertRules { id kind } }') },
  { name: 'alerts', needs: 'VIEWER', run: (u, t) => gql(u, t, '{ alerts(first: 5) { edges { node { id state } } } }') },
  {
    name: 'createAlertChannel',
    needs: 'ADMIN',
    run: (u, t) => gql(u, t, 'mutation { createAlertChannel(input: { name: "matrix", url: "https://hooks.example/matrix" }) { id } }'),
  },
  {
    name: 'createAlertRule',
    needs: 'MEMBER',
    run: (u, t, ids) =>
      gql(u, t, 'mutation($channel: ID!) { createAlertRule(input: { channelId: $channel, kind: SKIPPED }) { id } }', {
        channel: ids.alertChannelId,
      }),
  },
  {
    name: 'deleteAlertRule',
    needs: 'MEMBER',
    run: (u, t, ids) => gql(u, t, 'mutation($id: ID!) { deleteAlertRule(id: $id) { id } }', { id: ids.alertRuleId }),
  },
  {
    name: 'deleteAlertChannel',
    needs: 'ADMIN',
    run: (u, t, ids) => gql(u, t, 'mutation($id: ID!) { deleteAlertChannel(id: $id) { id } }', { id: ids.alertChannelId }),
  },
  {
    name: 'deleteJob',
    needs: 'MEMBER',
    run: (u, t, ids) => gql(u, t, 'mutation($id: ID!) { deleteJob(id: $id) { deletedJobId } }', { id: ids.jobId }),
  },
];

const ROLES: RoleName[] = ['VIEWER', 'MEMBER', 'ADMIN'];
const CALLERS = ROLES.flatMap((role) => [
  { role, via: 'JWT' as const },
  { role, via: 'API key' as const },
]);

describe('roles: what each role may do, with a JWT and with an API key', () => {
  let k: TestKairos;
  const tenant = uniqueName('roles');
  const admin = tokenFor(tenant, 'admin');
  /** Bearer tokens by caller: a JWT minted for the role, or the secret of an API key created with it. */
  const tokens = new Map<string, string>();

  beforeAll(async () => {
    // API only: nothing runs, so executions stay where the operations leave them. The matrix sends
    // every mutation as every caller of one tenant, more than the default write burst allows.
    k = await startTestKairos('roles', { roles: ['api'], env: { DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '100000' } });
    for (const role of ROLES) {
      tokens.set(`${role}/JWT`, tokenFor(tenant, role.toLowerCase() as 'admin' | 'member' | 'viewer'));
      const created = await gqlOk(k.url, admin, 'mutation($role: Role!) { createApiKey(name: "caller", role: $role) { secret } }', {
        role,
      });
      tokens.set(`${role}/API key`, created.createApiKey.secret);
    }
  });
  afterAll(async () => {
    await k?.stop();
  });

  /** A job with one QUEUED execution and a key to revoke, made by an ADMIN for one caller's run. */
  async function fixture(): Promise<Ids> {
    const job = (
      await gqlOk(k.url, admin, 'mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }', {
        input: { ...JOB_INPUT, name: 'fixture' },
      })
    ).createJob.job;
    const execution = (await gqlOk(k.url, admin, 'mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }', { id: job.id }))
      .triggerJob.execution;
    const key = (await gqlOk(k.url, admin, 'mutation { createApiKey(name: "fixture", role: VIEWER) { apiKey { id } } }')).createApiKey
      .apiKey;
    const channel = (
      await gqlOk(k.url, admin, 'mutation { createAlertChannel(input: { name: "fixture", url: "https://hooks.example/fixture" }) { id } }')
    ).createAlertChannel;
    const rule = (
      await gqlOk(k.url, admin, 'mutation($channel: ID!) { createAlertRule(input: { channelId: $channel, kind: SKIPPED }) { id } }', {
        channel: channel.id,
      })
    ).createAlertRule;
    return {
      jobId: job.id,
      executionId: execution.id,
      apiKeyId: key.id,
      alertChannelId: channel.id,
      alertRuleId: rule.id,
      calendarName: uniqueName('calendar'),
    };
  }

  /** What the fixture looks like through an ADMIN's eyes, to show a refused call changed nothing. */
  async function snapshot(ids: Ids) {
    return gqlOk(
      k.url,
      admin,
      `query($job: ID!, $execution: ID!) { job(id: $job) { name status updatedAt } execution(id: $execution) { status updatedAt } apiKeys { id } }`,
      { job: ids.jobId, execution: ids.executionId },
    );
  }

  it('covers every query and mutation of the schema', async () => {
    const { queries, mutations } = await schemaOperations();
    expect(OPERATIONS.map((op) => op.name).sort()).toEqual([...queries, ...mutations].sort());
  });

  it.each(CALLERS)(
    '$role via $via: VIEWER reads, MEMBER also changes jobs and executions, ADMIN also manages keys and the webhook secret',
    async ({ role, via }) => {
      const token = tokens.get(`${role}/${via}`)!;
      const ids = await fixture();
      const before = await snapshot(ids);
      const outcome: Record<string, string> = {};
      const expected: Record<string, string> = {};
      for (const op of OPERATIONS) {
        const allowed = RANK[role] >= RANK[op.needs];
        expected[op.name] = allowed ? 'allowed' : 'FORBIDDEN';
        const result = await op.run(k.url, token, ids);
        expect(result.status).toBe(200);
        if (result.errors?.length) {
          outcome[op.name] = result.errors[0].extensions?.code ?? 'no code';
          expect(result.data).toBeNull();
        } else {
          outcome[op.name] = 'allowed';
          if (allowed) op.after?.(result.data!, ids);
        }
      }
      expect(outcome).toEqual(expected);
      if (role === 'VIEWER') expect(await snapshot(ids)).toEqual(before);
    },
  );

  it('refuses a MEMBER every ADMIN operation, naming the role it needs, and changes no key', async () => {
    const ids = await fixture();
    const keysBefore = (await snapshot(ids)).apiKeys;
    for (const via of ['JWT', 'API key']) {
      const token = tokens.get(`MEMBER/${via}`)!;
      for (const op of OPERATIONS.filter((o) => o.needs === 'ADMIN')) {
        const result = await op.run(k.url, token, ids);
        expect([op.name, result.errors?.[0].extensions?.code]).toEqual([op.name, 'FORBIDDEN']);
        expect(result.errors?.[0].message).toContain('ADMIN');
      }
    }
    expect((await snapshot(ids)).apiKeys).toEqual(keysBefore);
  });

  describe("an HTTP target's header values", () => {
    const clients: Client[] = [];
    afterAll(async () => {
      await Promise.all(clients.map(async (c) => await c.dispose()));
    });

    const SECRET = 's3cret';
    const TARGET = `target { ... on HttpTarget { url headers { name value } } }`;
    const member = () => tokens.get('MEMBER/JWT')!;

    /** A job a MEMBER made with a credential header and a harmless one. */
    async function jobWithCredential(): Promise<string> {
      const input = {
        name: 'with credential',
        schedule: { intervalSeconds: 3600 },
        paused: true,
        target: {
          http: {
            url: 'https://example.com/hook',
            headers: [
              { name: 'Authorization', value: `Bearer ${SECRET}` },
              { name: 'X-Team', value: 'billing' },
            ],
          },
        },
      };
      const created = await gqlOk(
        k.url,
        member(),
        `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id ${TARGET} } } }`,
        {
          input,
        },
      );
      // The MEMBER who made it reads it back whole (the dashboard's edit form round-trips the values).
      expect(created.createJob.job.target.headers).toEqual(input.target.http.headers);
      return created.createJob.job.id;
    }

    /** The job through `job`, `jobs` and `node`, as one JSON text per query. */
    async function readEverywhere(token: string, id: string): Promise<{ answers: string[]; headers: unknown }> {
      const one = await gqlOk(k.url, token, `query($id: ID!) { job(id: $id) { ${TARGET} } }`, { id });
      const list = await gqlOk(k.url, token, `{ jobs(first: 100) { edges { node { id ${TARGET} } } } }`);
      const node = await gqlOk(k.url, token, `query($id: ID!) { node(id: $id) { ... on Job { ${TARGET} } } }`, { id });
      expect(list.jobs.edges.some((e: any) => e.node.id === id)).toBe(true);
      return { answers: [one, list, node].map((a) => JSON.stringify(a)), headers: one.job.target.headers };
    }

    it.each(['JWT', 'API key'])('are hidden from a VIEWER (via %s) in job, jobs and node; names are kept', async (via) => {
      const id = await jobWithCredential();
      const { answers, headers } = await readEverywhere(tokens.get(`VIEWER/${via}`)!, id);
      for (const answer of answers) expect(answer).not.toContain(SECRET);
      for (const answer of answers) expect(answer).not.toContain('billing');
      expect(headers).toEqual([
        { name: 'Authorization', value: HIDDEN },
        { name: 'X-Team', value: HIDDEN },
      ]);
    });

    it.each(['MEMBER', 'ADMIN'])('are read whole by %s in job, jobs and node', async (role) => {
      const id = await jobWithCredential();
      const { answers, headers } = await readEverywhere(tokens.get(`${role}/API key`)!, id);
      for (const answer of answers) expect(answer).toContain(`Bearer ${SECRET}`);
      expect(headers).toEqual([
        { name: 'Authorization', value: `Bearer ${SECRET}` },
        { name: 'X-Team', value: 'billing' },
      ]);
    });

    it("are hidden from a VIEWER's subscription, not from a MEMBER's sending the same document", async () => {
      const id = await jobWithCredential();
      // The same document and variables: subscribers of one tenant may share an execution of each event, never across roles.
      const query = `subscription($jobId: ID) { executionUpdated(jobId: $jobId) { execution { id job { ${TARGET} } } } }`;
      type Event = { executionUpdated: { execution: { id: string; job: any } } };
      const collectors = ['VIEWER', 'MEMBER'].map((role) => {
        const client = wsClient(k.url, tokens.get(`${role}/JWT`)!);
        clients.push(client);
        return new EventCollector<Event>(client, query, { jobId: id });
      });
      const trigger = async () =>
        (await gqlOk(k.url, member(), 'mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }', { id })).triggerJob.execution.id;
      for (const events of collectors) await triggerUntilSeen(events, (e) => e.executionUpdated.execution.id, trigger);
      const [viewer, memberEvents] = collectors.map((events) => {
        events.stop();
        return events.items;
      });
      expect(JSON.stringify(viewer)).not.toContain(SECRET);
      expect(viewer[0].executionUpdated.execution.job.target.headers).toEqual([
        { name: 'Authorization', value: HIDDEN },
        { name: 'X-Team', value: HIDDEN },
      ]);
      expect(JSON.stringify(memberEvents)).toContain(`Bearer ${SECRET}`);
    });
  });

  describe('subscriptions', () => {
    const clients: Client[] = [];
    afterAll(async () => {
      await Promise.all(clients.map(async (c) => await c.dispose()));
    });

    it.each(CALLERS)("$role via $via may subscribe to its tenant's execution events", async ({ role, via }) => {
      const client = wsClient(k.url, tokens.get(`${role}/${via}`)!);
      clients.push(client);
      const events = new EventCollector<{ executionUpdated: { execution: { id: string } } }>(
        client,
        'subscription { executionUpdated { status execution { id } } }',
      );
      const job = (
        await gqlOk(k.url, admin, 'mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }', {
          input: { ...JOB_INPUT, name: 'sub' },
        })
      ).createJob.job;
      const trigger = async () =>
        (await gqlOk(k.url, admin, 'mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }', { id: job.id })).triggerJob.execution
          .id;
      await triggerUntilSeen(events, (e) => e.executionUpdated.execution.id, trigger);
      events.stop();
    });
  });
});
