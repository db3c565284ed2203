// Covers: src/api/createContext.ts, src/resolvers/node.resolver.ts, src/resolvers/subscription.resolver.ts,
// src/tenants/rotateWebhookSecret.ts, src/tenants/revokePreviousWebhookSecret.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from 'graphql-ws';
import { MongoClient, ObjectId } from 'mongodb';
import { fromGlobalId, toGlobalId } from '../../src/ids/globalId.js';
import { MONGO_URL } from '../support/env.js';
import { gql, gqlOk, type GraphQLResponse } from '../support/graphqlClient.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { startReceiver } from '../support/httpReceiver.js';
import { schemaOperations } from '../support/schemaOperations.js';
import { EventCollector, triggerUntilSeen, wsClient } from '../support/subscriptions.js';
import { signatureValid } from '../support/webhookSignature.js';
import { setTimeout as sleep } from 'node:timers/promises';

const JOB_VIEW = `id name description status nextRunAt lastRunAt createdAt updatedAt payload workload timeoutSeconds overlapPolicy misfirePolicy
  schedule { kind cron timezone intervalSeconds runAt startAt endAt jitterSeconds }
  target { __typename ... on HttpTarget { url method headers { name value } } ... on HandlerTarget { handler } }
  retryPolicy { maxAttempts }
  executions(first: 100) { edges { node { id status updatedAt } } }`;
const EXECUTION_VIEW = `id jobId status trigger scheduledFor queuedAt startedAt finishedAt attempt maxAttempts nextAttemptAt error reason result
  createdAt updatedAt attempts { number outcome error } job { id name }`;
const PAGE_INFO = 'pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';

const CREATE_JOB = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id name } } }`;
const TRIGGER = `mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }`;
const CANCEL = `mutation($id: ID!) { cancelExecution(id: $id) { execution { id status } } }`;
const CREATE_KEY = `mutation($name: String!, $role: Role!) { createApiKey(name: $name, role: $role) { secret apiKey { id } } }`;
const ROTATE = `mutation { rotateWebhookSecret { secret } }`;
/** A's calendar: B's calendar operations by its name find nothing of A's (names are per tenant). */
const A_CALENDAR = 'a-calendar';
const A_CALENDAR_INPUT = { name: A_CALENDAR, windows: [{ name: 'a-private-window', from: '2031-01-01', to: '2031-01-02' }] };
const CALENDARS = '{ calendars(first: 100) { edges { node { name windows { name } } } } }';
/** A's calendar as A sees it, unchanged by anything B does. */
async function calendarsOfA(w: World): Promise<void> {
  expect((await gqlOk(w.url, w.tokenA, CALENDARS)).calendars.edges).toEqual([
    { node: { name: A_CALENDAR, windows: [{ name: 'a-private-window' }] } },
  ]);
}

/** What the subscriptions select; the matrix covers every field of the schema's Subscription type listed here. */
const SUBSCRIPTIONS = {
  executionUpdated: `subscription($jobId: ID) { executionUpdated(jobId: $jobId) { status previousStatus execution { id jobId status } } }`,
  // Another tenant's operation is NOT_FOUND to it: tests/integration/bulkOperations.test.ts.
  bulkOperationProgress: `subscription($id: ID!) { bulkOperationProgress(id: $id) { status done } }`,
  // Another tenant's alerts never reach it: tests/integration/alerts.test.ts.
  alertRaised: `subscription { alertRaised { id state } }`,
};
type Event = { executionUpdated: { status: string; execution: { id: string; jobId: string } } };

/** Appears in A's payloads and headers: no answer to B may contain it. */
const A_SECRET = 'a-private-payload-7f3c';
const A_IDEMPOTENCY_KEY = 'a-shared-idempotency-key';
const HOUR_MS = 3600_000;

/** The ids a tenant made, by name. */
interface Made {
  jobs: Record<string, string>;
  executions: Record<string, string>;
  apiKeys: Record<string, string>;
  alertChannels: Record<string, string>;
  alertRules: Record<string, string>;
}

/** What a probe needs: the server, A's ids, and B's own objects (kept up to date as B makes more). */
interface World {
  url: string;
  tokenA: string;
  a: Made;
  b: { jobs: Set<string>; executions: Set<string>; apiKeys: Set<string>; ownJob: string };
  secretA: string;
}

type IdKind = 'Job' | 'Execution' | 'ApiKey' | 'AlertChannel' | 'AlertRule';

/** An operation B runs with one of A's ids, and again with a well-formed id that does not exist. */
interface IdProbe {
  /** The root field it exercises. */
  field: string;
  what: string;
  takes: IdKind | 'any';
  query: string;
  variables(id: string, world: World): Record<string, unknown>;
  /** What the missing id gets, so the comparison is not between two identical mistakes. */
  missing: 'an answer' | 'NOT_FOUND';
}

/** A mutation `field(id: $id)` that a missing id makes NOT_FOUND. */
function mutationById(field: string, takes: IdKind, selection: string, moreArguments = ''): IdProbe {
  return {
    field,
    what: field,
    takes,
    missing: 'NOT_FOUND',
    query: `mutation($id: ID!) { ${field}(id: $id${moreArguments}) { ${selection} } }`,
    variables: (id) => ({ id }),
  };
}

const ID_PROBES: IdProbe[] = [
  {
    field: 'node',
    what: 'node(id)',
    takes: 'any',
    missing: 'an answer',
    query: `query($id: ID!) { node(id: $id) { id ... on Job { name jobStatus: status } ... on Execution { executionStatus: status } } }`,
    variables: (id) => ({ id }),
  },
  {
    field: 'job',
    what: 'job(id)',
    takes: 'Job',
    missing: 'an answer',
    query: `query($id: ID!) { job(id: $id) { ${JOB_VIEW} } }`,
    variables: (id) => ({ id }),
  },
  {
    field: 'job',
    what: "B's job's executions filtered by jobId",
    takes: 'Job',
    missing: 'an answer',
    query: `query($own: ID!, $id: ID!) { job(id: $own) { id executions(filter: { jobId: $id }) { edges { node { id } } ${PAGE_INFO} } } }`,
    variables: (id, w) => ({ own: w.b.ownJob, id }),
  },
  {
    field: 'execution',
    what: 'execution(id)',
    takes: 'Execution',
    missing: 'an answer',
    query: `query($id: ID!) { execution(id: $id) { ${EXECUTION_VIEW} } }`,
    variables: (id) => ({ id }),
  },
  {
    field: 'executions',
    what: 'executions filtered by jobId',
    takes: 'Job',
    missing: 'an answer',
    query: `query($id: ID!) { executions(first: 100, filter: { jobId: $id }) { edges { node { id status } } ${PAGE_INFO} } }`,
    variables: (id) => ({ id }),
  },
  {
    field: 'changes',
    what: 'changes filtered by jobId',
    takes: 'Job',
    missing: 'an answer',
    query: `query($id: ID!) { changes(first: 100, filter: { jobId: $id }) { edges { node { id action jobId } } ${PAGE_INFO} } }`,
    variables: (id) => ({ id }),
  },
  {
    field: 'executionStats',
    what: 'executionStats(jobId)',
    takes: 'Job',
    missing: 'an answer',
    query: `query($id: ID!, $since: DateTime!) { executionStats(since: $since, jobId: $id) { total byStatus { status count } startLagMsP50 startLagMsP99 } }`,
    variables: (id) => ({ id, since: new Date(Date.now() - HOUR_MS).toISOString() }),
  },
  {
    field: 'updateJob',
    what: 'updateJob',
    takes: 'Job',
    missing: 'NOT_FOUND',
    query: `mutation($input: UpdateJobInput!) { updateJob(input: $input) { job { id name } } }`,
    variables: (id) => ({ input: { id, name: 'taken over', payload: { by: 'B' }, schedule: { intervalSeconds: 60 } } }),
  },
  mutationById('pauseJob', 'Job', 'job { id status }'),
  mutationById('resumeJob', 'Job', 'job { id status }'),
  mutationById('deleteJob', 'Job', 'deletedJobId'),
  mutationById('triggerJob', 'Job', 'execution { id }', ', payload: { by: "B" }'),
  mutationById('backfillJob', 'Job', 'created existing instants { at }', ', from: "2026-03-01T00:00:00Z", to: "2026-03-03T00:00:00Z"'),
  mutationById('cancelExecution', 'Execution', 'execution { id status }'),
  mutationById('retryExecution', 'Execution', 'execution { id status }'),
  mutationById('revokeApiKey', 'ApiKey', 'id'),
  mutationById('deleteAlertChannel', 'AlertChannel', 'id'),
  mutationById('deleteAlertRule', 'AlertRule', 'id'),
  {
    field: 'createAlertRule',
    what: "createAlertRule on A's channel",
    takes: 'AlertChannel',
    missing: 'NOT_FOUND',
    query: `mutation($id: ID!) { createAlertRule(input: { channelId: $id, kind: SKIPPED }) { id } }`,
    variables: (id) => ({ id }),
  },
  {
    field: 'alerts',
    what: 'alerts filtered by jobId',
    takes: 'Job',
    missing: 'an answer',
    query: `query($id: ID!) { alerts(jobId: $id) { edges { node { id state } } ${PAGE_INFO} } }`,
    variables: (id) => ({ id }),
  },
  {
    field: 'bulkOperation',
    what: 'bulkOperation(id)',
    takes: 'any',
    missing: 'an answer',
    query: `query($id: ID!) { bulkOperation(id: $id) { id status total } }`,
    variables: (id) => ({ id }),
  },
  // Over a filter on A's job: B's operation matches none of A's executions (its own id and times left out of the comparison).
  ...(['retryExecutions', 'cancelExecutions'] as const).map((field): IdProbe => ({
    field,
    what: `${field} filtered by jobId`,
    takes: 'Job',
    missing: 'an answer',
    query: `mutation($id: ID!) { ${field}(filter: { jobId: $id }) { kind status reason total done failed errors { executionId } } }`,
    variables: (id) => ({ id }),
  })),
];

/** An operation without an id of A's: B's answer must be about B alone. */
interface OwnProbe {
  field: string;
  what: string;
  check(world: World, token: string): Promise<void>;
}

const OWN_PROBES: OwnProbe[] = [
  {
    field: 'viewer',
    what: "B's viewer counts B's jobs only",
    check: async (w, token) => {
      const { viewer } = await gqlOk(w.url, token, '{ viewer { tenantId quota { jobCount } } }');
      expect(viewer.quota.jobCount).toBe(w.b.jobs.size);
    },
  },
  {
    field: 'jobs',
    what: "jobs lists and counts B's jobs only, whatever the filter",
    check: async (w, token) => {
      const query = `query($filter: JobFilter) { jobs(first: 100, filter: $filter) { totalCount edges { node { id } } } }`;
      const all = (await gqlOk(w.url, token, query)).jobs;
      expect(new Set(all.edges.map((e: any) => e.node.id))).toEqual(w.b.jobs);
      expect(all.totalCount).toBe(w.b.jobs.size);
      const page = await gqlOk(w.url, token, `query($first: Int) { jobs(first: $first) { pageInfo { hasNextPage } } }`, {
        first: w.b.jobs.size,
      });
      expect(page.jobs.pageInfo.hasNextPage).toBe(false);
      // Every one of A's jobs is named "a-…"; B has none of that name.
      expect((await gqlOk(w.url, token, query, { filter: { namePrefix: 'a-' } })).jobs).toEqual({ totalCount: 0, edges: [] });
    },
  },
  {
    field: 'executions',
    what: "executions lists B's executions only, whatever the filter",
    check: async (w, token) => {
      const query = `query($filter: ExecutionFilter) { executions(first: 100, filter: $filter) { edges { node { id jobId } } } }`;
      const all = (await gqlOk(w.url, token, query)).executions.edges.map((e: any) => e.node);
      expect(new Set(all.map((e: any) => e.id))).toEqual(w.b.executions);
      const page = await gqlOk(w.url, token, `query($first: Int) { executions(first: $first) { pageInfo { hasNextPage } } }`, {
        first: w.b.executions.size,
      });
      expect(page.executions.pageInfo.hasNextPage).toBe(false);
      // A has RUNNING and CANCELLED executions; B has none.
      const foreignStatuses = await gqlOk(w.url, token, query, { filter: { statuses: ['RUNNING', 'CANCELLED', 'QUEUED'] } });
      expect(foreignStatuses.executions.edges).toEqual([]);
    },
  },
  {
    field: 'executionStats',
    what: "executionStats counts B's executions only",
    check: async (w, token) => {
      const since = new Date(Date.now() - HOUR_MS).toISOString();
      const { executionStats } = await gqlOk(
        w.url,
        token,
        `query($since: DateTime!) { executionStats(since: $since) { total byStatus { status count } } }`,
        { since },
      );
      expect(executionStats).toEqual({ total: w.b.executions.size, byStatus: [{ status: 'SUCCEEDED', count: w.b.executions.size }] });
    },
  },
  {
    field: 'alertChannels',
    what: "alertChannels and alertRules list B's only",
    check: async (w, token) => {
      const data = await gqlOk(w.url, token, '{ alertChannels { id } alertRules { id } }');
      expect(data).toEqual({ alertChannels: [], alertRules: [] });
    },
  },
  { field: 'alertRules', what: 'alertRules (with alertChannels)', check: async () => undefined },
  {
    field: 'createAlertChannel',
    what: "createAlertChannel makes a channel of B's, which A does not see",
    check: async (w, token) => {
      const made = (
        await gqlOk(w.url, token, 'mutation { createAlertChannel(input: { name: "b", url: "https://b.example/hook" }) { id } }')
      ).createAlertChannel;
      const ofA = (await gqlOk(w.url, w.tokenA, '{ alertChannels { id } }')).alertChannels.map((c: any) => c.id);
      expect(ofA).not.toContain(made.id);
      await gqlOk(w.url, token, 'mutation($id: ID!) { deleteAlertChannel(id: $id) { id } }', { id: made.id });
    },
  },
  {
    field: 'apiKeys',
    what: "apiKeys lists B's keys only",
    check: async (w, token) => {
      const { apiKeys } = await gqlOk(w.url, token, '{ apiKeys { id name } }');
      expect(new Set(apiKeys.map((key: any) => key.id))).toEqual(w.b.apiKeys);
    },
  },
  {
    field: 'previewSchedule',
    what: 'previewSchedule answers B as it answers A',
    check: async (w, token) => {
      const query = `{ previewSchedule(schedule: { cron: "0 3 * * *", timezone: "Europe/Paris", startAt: "2031-01-01T00:00:00.000Z" }, count: 3) { at local } }`;
      expect(await gqlOk(w.url, token, query)).toEqual(await gqlOk(w.url, w.tokenA, query));
    },
  },
  {
    field: 'createJob',
    what: "createJob with A's idempotency key makes a job of B's",
    check: async (w, token) => {
      const input = {
        name: 'b-shadow',
        idempotencyKey: A_IDEMPOTENCY_KEY,
        schedule: { intervalSeconds: 3600 },
        target: { handler: 'noop' },
        paused: true,
      };
      const { job } = (
        await gqlOk(w.url, token, `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id name payload } } }`, { input })
      ).createJob;
      expect(Object.values(w.a.jobs)).not.toContain(job.id);
      expect(job.payload).toBeNull();
      w.b.jobs.add(job.id);
    },
  },
  {
    field: 'calendars',
    what: "calendars lists B's calendars only",
    check: async (w, token) => {
      expect(JSON.stringify(await gqlOk(w.url, token, CALENDARS))).not.toContain('a-private-window');
    },
  },
  {
    field: 'updateCalendar',
    what: "updateCalendar with A's calendar name is NOT_FOUND and changes nothing of A's",
    check: async (w, token) => {
      const result = await gql(
        w.url,
        token,
        `mutation($name: String!) { updateCalendar(input: { name: $name, windows: [] }) { jobsUpdated } }`,
        {
          name: A_CALENDAR,
        },
      );
      expect(result.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
      await calendarsOfA(w);
    },
  },
  {
    field: 'deleteCalendar',
    what: "deleteCalendar with A's calendar name is NOT_FOUND and deletes nothing of A's",
    check: async (w, token) => {
      const result = await gql(w.url, token, `mutation($name: String!) { deleteCalendar(name: $name) }`, { name: A_CALENDAR });
      expect(result.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
      await calendarsOfA(w);
    },
  },
  {
    field: 'createCalendar',
    what: "createCalendar with A's calendar name makes a calendar of B's (then B deletes it)",
    check: async (w, token) => {
      const created = await gqlOk(
        w.url,
        token,
        `mutation($name: String!) { createCalendar(input: { name: $name, windows: [] }) { name windows { name } } }`,
        {
          name: A_CALENDAR,
        },
      );
      expect(created.createCalendar).toEqual({ name: A_CALENDAR, windows: [] });
      await calendarsOfA(w);
      await gqlOk(w.url, token, `mutation($name: String!) { deleteCalendar(name: $name) }`, { name: A_CALENDAR });
    },
  },
  {
    field: 'createApiKey',
    what: "createApiKey makes a key of B's",
    check: async (w, token) => {
      const created = (await gqlOk(w.url, token, CREATE_KEY, { name: 'b-made', role: 'VIEWER' })).createApiKey;
      const { viewer } = await gqlOk(w.url, created.secret, '{ viewer { role quota { jobCount } } }');
      expect(viewer).toEqual({ role: 'VIEWER', quota: { jobCount: w.b.jobs.size } });
      w.b.apiKeys.add(created.apiKey.id);
    },
  },
  {
    field: 'rotateWebhookSecret',
    what: "rotateWebhookSecret replaces B's secret (A's deliveries are checked at the end)",
    check: async (w, token) => {
      const { secret } = (await gqlOk(w.url, token, ROTATE)).rotateWebhookSecret;
      expect(secret).not.toBe(w.secretA);
    },
  },
  {
    field: 'revokePreviousWebhookSecret',
    what: "revokePreviousWebhookSecret ends B's grace, not A's",
    check: async (w, token) => {
      const { revokePreviousWebhookSecret } = await gqlOk(
        w.url,
        token,
        'mutation { revokePreviousWebhookSecret { previousSecretExpiresAt } }',
      );
      expect(revokePreviousWebhookSecret).toEqual({ previousSecretExpiresAt: null });
      // A rotated with the default grace: its previous secret still signs.
      const { viewer } = await gqlOk(w.url, w.tokenA, '{ viewer { webhookSecretRotation { previousSecretExpiresAt } } }');
      expect(viewer.webhookSecretRotation.previousSecretExpiresAt).not.toBeNull();
    },
  },
];

/** The same id in another tenant's hands is replaced by this before answers are compared. */
const ID = '<id>';

/** A well-formed id of the same type as `id`, of no object anywhere. */
function missingLike(id: string): string {
  return toGlobalId(fromGlobalId(id)!.type, new ObjectId());
}

/** The answer as text with `id` (the id the caller passed) replaced by a placeholder. */
function normalised(result: GraphQLResponse, id: string): string {
  return JSON.stringify(result).split(id).join(ID);
}

describe("tenant isolation: B gets nothing of A's through any operation", () => {
  let k: TestKairos;
  let mongo: MongoClient;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const clients: Client[] = [];
  const tenantA = uniqueName('isoA');
  const tenantB = uniqueName('isoB');
  const tokenA = tokenFor(tenantA, 'admin');
  const tokenB = tokenFor(tenantB, 'admin');
  /** B's ways in, both ADMIN so that no operation is refused for its role: a JWT, and an API key made in beforeAll. */
  const callers = new Map<string, string>([['JWT', tokenB]]);
  /** Every execution A triggered by hand until its subscription was seen live. */
  const manualA: string[] = [];
  const a: Made = { jobs: {}, executions: {}, apiKeys: {}, alertChannels: {}, alertRules: {} };
  const world = {
    a,
    tokenA,
    b: { jobs: new Set<string>(), executions: new Set<string>(), apiKeys: new Set<string>(), ownJob: '' },
  } as World;
  let eventsA: EventCollector<Event>;
  let eventsB: EventCollector<Event>;
  /** B's subscriptions narrowed to each of A's jobs, and to a job that does not exist. */
  const eventsBByJob = new Map<string, EventCollector<Event>>();
  let before: unknown;

  async function createJob(token: string, input: Record<string, unknown>): Promise<string> {
    return (await gqlOk(k.url, token, CREATE_JOB, { input })).createJob.job.id;
  }
  async function trigger(token: string, jobId: string): Promise<string> {
    return (await gqlOk(k.url, token, TRIGGER, { id: jobId })).triggerJob.execution.id;
  }
  async function triggerB(): Promise<string> {
    const id = await trigger(tokenB, world.b.ownJob);
    world.b.executions.add(id);
    return id;
  }
  const eventId = (e: Event) => e.executionUpdated.execution.id;
  const saw = (executionId: string, status: string) => (items: Event[]) =>
    items.some((e) => eventId(e) === executionId && e.executionUpdated.status === status);

  /** Everything of A's: every document in the database, and A's objects read through A's token. */
  async function stateOfA(): Promise<unknown> {
    const db = mongo.db(k.dbName);
    const byId = { sort: { _id: 1 } } as const;
    const documents = {
      jobs: await db.collection('jobs').find({ tenantId: tenantA }, byId).toArray(),
      executions: await db.collection('executions').find({ tenantId: tenantA }, byId).toArray(),
      apiKeys: await db.collection('apiKeys').find({ tenantId: tenantA }, byId).toArray(),
      tenant: await db.collection<{ _id: string }>('tenants').findOne({ _id: tenantA }),
    };
    const read = async (query: string, id: string) => await gqlOk(k.url, tokenA, query, { id });
    const api = {
      jobs: await Promise.all(Object.values(a.jobs).map((id) => read(`query($id: ID!) { job(id: $id) { ${JOB_VIEW} } }`, id))),
      executions: await Promise.all(
        Object.values(a.executions).map((id) => read(`query($id: ID!) { execution(id: $id) { ${EXECUTION_VIEW} } }`, id)),
      ),
      lists: await gqlOk(
        k.url,
        tokenA,
        `{ viewer { tenantId quota { jobCount } webhookSecretRotation { previousSecretExpiresAt rotatedAt } } jobs(first: 100) { totalCount edges { node { id } } } apiKeys { id name role prefix lastUsedAt } }`,
      ),
    };
    return { documents, api };
  }

  /**
   * A's state once nothing moves any more, polled with a deadline. A worker's last writes follow its
   * events by a moment, and a job's lastRunAt by up to the worker's period for it (5 s): the state
   * must hold that long, or a lastRunAt landing after a quick "settled" reads as B's doing.
   */
  async function settledStateOfA(timeoutMs = 20_000, stableForMs = 5_500): Promise<unknown> {
    const deadline = Date.now() + timeoutMs;
    let previous = await stateOfA();
    let stableSince = Date.now();
    for (;;) {
      await sleep(200);
      const current = await stateOfA();
      if (JSON.stringify(current) !== JSON.stringify(previous)) stableSince = Date.now();
      else if (Date.now() - stableSince >= stableForMs) return current;
      if (Date.now() > deadline) throw new Error("A's state kept changing");
      previous = current;
    }
  }

  beforeAll(async () => {
    receiver = await startReceiver(() => ({ status: 200, body: 'ok' }));
    // A's objects are compared before and after B's operations: the sleeping attempt's start must be
    // in MongoDB when the RUNNING event is seen, not a second later (the deferred claim).
    // Rates are not what this tests: B's probes are hundreds of mutations in a few seconds, past a default burst.
    k = await startTestKairos('isolation', { env: { WORKER_CLAIM_AFTER_MS: '0', DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '1000000' } });
    world.url = k.url;
    mongo = new MongoClient(MONGO_URL);
    world.secretA = (await gqlOk(k.url, tokenA, ROTATE)).rotateWebhookSecret.secret;

    // A: an interval, a paused cron with an HTTP target, a sleeping handler and a one-off; an API key.
    const inAnHour = new Date(Date.now() + HOUR_MS).toISOString();
    a.jobs.interval = await createJob(tokenA, {
      name: 'a-interval',
      schedule: { intervalSeconds: 3600, startAt: inAnHour },
      target: { handler: 'noop' },
      payload: { secret: A_SECRET },
    });
    a.jobs.cronHttp = await createJob(tokenA, {
      name: 'a-cron-http',
      idempotencyKey: A_IDEMPOTENCY_KEY,
      schedule: { cron: '0 3 * * *', timezone: 'Europe/Paris' },
      target: { http: { url: `${receiver.url}/a`, headers: [{ name: 'X-A', value: A_SECRET }] } },
      paused: true,
    });
    a.jobs.sleeper = await createJob(tokenA, {
      name: 'a-sleeper',
      schedule: { intervalSeconds: 3600 },
      target: { handler: 'sleep' },
      payload: { ms: 120_000 },
      timeoutSeconds: 600,
      paused: true,
    });
    // Paused until A's subscription is live; resumed below, when its time has passed, it runs at once.
    a.jobs.oneOff = await createJob(tokenA, {
      name: 'a-once',
      schedule: { runAt: new Date(Date.now() + 100).toISOString() },
      target: { handler: 'noop' },
      paused: true,
    });
    a.apiKeys.member = (await gqlOk(k.url, tokenA, CREATE_KEY, { name: 'a-key', role: 'MEMBER' })).createApiKey.apiKey.id;
    a.alertChannels.ops = (
      await gqlOk(k.url, tokenA, `mutation { createAlertChannel(input: { name: "a-ops", url: "https://a.example/hook" }) { id } }`)
    ).createAlertChannel.id;
    a.alertRules.skipped = (
      await gqlOk(k.url, tokenA, `mutation($c: ID!) { createAlertRule(input: { channelId: $c, kind: SKIPPED }) { id } }`, {
        c: a.alertChannels.ops,
      })
    ).createAlertRule.id;

    await gqlOk(k.url, tokenA, `mutation($input: CalendarInput!) { createCalendar(input: $input) { name } }`, { input: A_CALENDAR_INPUT });
    // B: a job of its own and an ADMIN API key as its second way in.
    world.b.ownJob = await createJob(tokenB, {
      name: 'b-own',
      schedule: { intervalSeconds: 3600 },
      target: { handler: 'noop' },
      paused: true,
    });
    world.b.jobs.add(world.b.ownJob);
    const keyB = (await gqlOk(k.url, tokenB, CREATE_KEY, { name: 'b-caller', role: 'ADMIN' })).createApiKey;
    world.b.apiKeys.add(keyB.apiKey.id);
    callers.set('API key', keyB.secret);

    const clientA = wsClient(k.url, tokenA);
    const clientB = wsClient(k.url, tokenB);
    clients.push(clientA, clientB);
    for (const jobId of [...Object.values(a.jobs), missingLike(a.jobs.sleeper)]) {
      eventsBByJob.set(jobId, new EventCollector<Event>(clientB, SUBSCRIPTIONS.executionUpdated, { jobId }));
    }
    eventsA = new EventCollector<Event>(clientA, SUBSCRIPTIONS.executionUpdated);
    eventsB = new EventCollector<Event>(clientB, SUBSCRIPTIONS.executionUpdated);
    await triggerUntilSeen(eventsA, eventId, async () => {
      const id = await trigger(tokenA, a.jobs.interval);
      manualA.push(id);
      return id;
    });
    a.executions.manual = manualA[0];
    await triggerUntilSeen(eventsB, eventId, triggerB);

    // A's executions: an HTTP delivery and a one-off that succeed, one sleeping (RUNNING) and one cancelled while it ran.
    a.executions.http = await trigger(tokenA, a.jobs.cronHttp);
    a.executions.running = await trigger(tokenA, a.jobs.sleeper);
    a.executions.cancelled = await trigger(tokenA, a.jobs.sleeper);
    await eventsA.waitFor(saw(a.executions.cancelled, 'RUNNING'), 15_000);
    await gqlOk(k.url, tokenA, CANCEL, { id: a.executions.cancelled });
    await gqlOk(k.url, tokenA, `mutation($id: ID!) { resumeJob(id: $id) { job { id } } }`, { id: a.jobs.oneOff });
    const seen = await eventsA.waitFor(
      (items) =>
        [
          ...manualA.map((id) => saw(id, 'SUCCEEDED')),
          saw(a.executions.http, 'SUCCEEDED'),
          saw(a.executions.running, 'RUNNING'),
          saw(a.executions.cancelled, 'CANCELLED'),
        ].every((s) => s(items)) &&
        items.some((e) => e.executionUpdated.execution.jobId === a.jobs.oneOff && e.executionUpdated.status === 'SUCCEEDED'),
      20_000,
    );
    a.executions.oneOff = eventId(seen.find((e) => e.executionUpdated.execution.jobId === a.jobs.oneOff)!);
    expect(signatureValid((await receiver.waitForRequests(1, 5_000))[0], world.secretA)).toBe(true);
    before = await settledStateOfA();
  }, 90_000);

  afterAll(async () => {
    // The sleeping execution would otherwise hold the worker's drain.
    if (a.executions.running) await gql(k.url, tokenA, CANCEL, { id: a.executions.running }).catch(() => undefined);
    for (const events of [eventsA, eventsB, ...eventsBByJob.values()]) events?.stop();
    await Promise.all(clients.map(async (c) => await c.dispose()));
    await mongo?.close();
    await receiver?.close();
    await k?.stop();
  });

  it('covers every query, mutation and subscription of the schema', async () => {
    const { queries, mutations, subscriptions } = await schemaOperations();
    const covered = new Set([...ID_PROBES.map((p) => p.field), ...OWN_PROBES.map((p) => p.field), ...Object.keys(SUBSCRIPTIONS)]);
    expect([...covered].sort()).toEqual([...queries, ...mutations, ...subscriptions].sort());
  });

  it("executionUpdated: B's subscriptions, unfiltered or narrowed to A's job, get none of A's events", async () => {
    // Events reach one subscription in order: once B's later execution has arrived, any of A's earlier ones would have too.
    const barrier = await triggerB();
    await eventsB.waitFor(saw(barrier, 'SUCCEEDED'), 15_000);
    await eventsB.waitFor((items) => [...world.b.executions].every((id) => saw(id, 'SUCCEEDED')(items)), 15_000);
    expect(new Set(eventsB.items.map(eventId))).toEqual(world.b.executions);
    for (const [jobId, events] of eventsBByJob) {
      // Neither an event nor an error, for A's jobs exactly as for the missing one (waitFor throws a subscription's error).
      expect([jobId, await events.waitFor(() => true, 1)]).toEqual([jobId, []]);
    }
    // Not vacuous: A's own subscription saw A's executions run, and none of B's.
    expect(new Set(eventsA.items.map(eventId))).toEqual(new Set([...manualA, ...Object.values(a.executions)]));
    for (const id of world.b.executions) expect(eventsA.items.map(eventId)).not.toContain(id);
  });

  describe.each(['JWT', 'API key'])('B via %s', (via) => {
    const token = () => callers.get(via)!;
    const cases = () =>
      ID_PROBES.flatMap((probe) => {
        const ids =
          probe.takes === 'any'
            ? [...Object.values(a.jobs), ...Object.values(a.executions), ...Object.values(a.apiKeys)]
            : Object.values(idsOf(probe.takes));
        return ids.map((id) => ({ probe, id }));
      });
    const idsOf = (kind: IdKind) =>
      ({ Job: a.jobs, Execution: a.executions, ApiKey: a.apiKeys, AlertChannel: a.alertChannels, AlertRule: a.alertRules })[kind];

    // Before the id probes: should one of those get through, A's objects would be gone from what these look at.
    it.each(OWN_PROBES.map((p) => [p.what, p] as const))('%s', async (_what, probe) => {
      await probe.check(world, token());
    });

    it("answers for each of A's ids exactly as for an id that does not exist, and names nothing of A", async () => {
      const all = cases();
      expect(all.length).toBeGreaterThan(50);
      const foreignIds = [...Object.values(a.jobs), ...Object.values(a.executions), ...Object.values(a.apiKeys)];
      const mismatches: string[] = [];
      for (const { probe, id } of all) {
        const missing = missingLike(id);
        const foreign = await gql(k.url, token(), probe.query, probe.variables(id, world));
        const absent = await gql(k.url, token(), probe.query, probe.variables(missing, world));
        expect([probe.what, absent.status, absent.errors?.[0]?.extensions?.code ?? 'an answer']).toEqual([probe.what, 200, probe.missing]);
        if (normalised(foreign, id) !== normalised(absent, missing)) {
          mismatches.push(`${probe.what} with ${id}: ${normalised(foreign, id)} vs ${normalised(absent, missing)}`);
        }
        const text = normalised(foreign, id);
        for (const leak of [
          tenantA,
          A_SECRET,
          ...foreignIds.filter((other) => other !== id).flatMap((other) => [other, fromGlobalId(other)!.id.toHexString()]),
        ]) {
          if (text.includes(leak)) mismatches.push(`${probe.what} with ${id} names ${leak}: ${text}`);
        }
      }
      expect(mismatches).toEqual([]);
    }, 120_000);
  });

  it('left every object of A as it was: documents, versions, statuses, keys and webhook secret', async () => {
    expect(await stateOfA()).toEqual(before);
    for (const events of eventsBByJob.values()) expect(events.items).toEqual([]);
    for (const e of eventsB.items) expect(world.b.executions.has(eventId(e))).toBe(true);
  });

  it("signs A's deliveries with A's secret after B rotated its own", async () => {
    const id = await trigger(tokenA, a.jobs.cronHttp);
    await eventsA.waitFor(saw(id, 'SUCCEEDED'), 15_000);
    const [, second] = await receiver.waitForRequests(2, 5_000);
    expect(signatureValid(second, world.secretA)).toBe(true);
  });
});
