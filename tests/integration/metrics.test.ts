// Covers: src/api/firstErrorCode.ts, src/api/operationMetrics.ts, src/metrics/apiFamilies.ts, src/metrics/buckets.ts,
// src/metrics/connectionFamilies.ts, src/metrics/executionFamilies.ts, src/metrics/metricsServer.ts, src/metrics/operationLabels.ts,
// src/metrics/schedulerFamilies.ts
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from 'graphql-ws';
import { dropTestState, startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { deploymentEnv, startProcess } from '../support/processes.js';
import { EventCollector, wsClient } from '../support/subscriptions.js';
import { EXECUTION_FIELDS, waitUntil } from '../support/waitFor.js';
import { familyOf, metricNamesIn, scrape, total, type Scrape } from '../support/metricsText.js';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const EXECUTIONS = `query($jobId: ID) { executions(first: 100, filter: { jobId: $jobId }) { edges { node { ${EXECUTION_FIELDS} } } } }`;
const SUBSCRIBE = `subscription { executionUpdated { status execution { id } } }`;
type Role = 'api' | 'scheduler' | 'worker';

/**
 * One process per role (api, scheduler, worker) of one deployment: each serves /metrics on its
 * METRICS_PORT (the api's port answers 404 there), and while jobs run (a succeeding interval job, a manual
 * trigger, an HTTP job that fails and retries, a createJob over the quota, a subscription) the
 * families each role records move. The dashboard's metrics must all be among those scraped.
 */
describe('metrics of every role, scraped while jobs run', () => {
  const name = uniqueName('metrics');
  const token = tokenFor(uniqueName('metrics'), 'member');
  const env = deploymentEnv({ dbName: name, prefix: name }, { ALLOW_PRIVATE_TARGETS: 'true', DEFAULT_MAX_JOBS: '3' });
  const children: ChildProcess[] = [];
  const urls = {} as Record<Role, string>;
  let api = '';
  let client: Client | null = null;
  const before = {} as Record<Role, Scrape>;
  const after = {} as Record<Role, Scrape>;

  beforeAll(async () => {
    const started = await Promise.all((['api', 'scheduler', 'worker'] as const).map((role) => startProcess({ ...env, ROLES: role })));
    for (const [i, role] of (['api', 'scheduler', 'worker'] as const).entries()) {
      children.push(started[i].child);
      urls[role] = started[i].metricsUrl;
    }
    api = started[0].url;
    // Not on the API port, which answers anyone: the scrape takes no credentials.
    expect(new URL(urls.api).port).not.toBe(new URL(api).port);
    expect((await fetch(new URL('/metrics', api))).status).toBe(404);
    expect(new Set(Object.values(urls).map((u) => new URL(u).port)).size).toBe(3);
    for (const role of ['api', 'scheduler', 'worker'] as const) before[role] = await scrape(urls[role]);

    client = wsClient(api, token);
    const events = new EventCollector<{ executionUpdated: { status: string } }>(client, SUBSCRIBE);
    const tick = (
      await gqlOk(api, token, CREATE, { input: { name: 'tick', schedule: { intervalSeconds: 1 }, target: { handler: 'noop' } } })
    ).createJob.job.id;
    // Port 1 refuses connections: each attempt fails; one retry after 0.1 s, then FAILED.
    const broken = (
      await gqlOk(api, token, CREATE, {
        input: {
          name: 'broken',
          schedule: { runAt: new Date(Date.now() + 500).toISOString() },
          target: { http: { url: 'http://127.0.0.1:1/' } },
          retryPolicy: { maxAttempts: 2, initialBackoffSeconds: 0.1 },
        },
      })
    ).createJob.job.id;
    await gqlOk(api, token, `mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }`, { id: tick });
    await gqlOk(api, token, CREATE, {
      input: { name: 'third', paused: true, schedule: { intervalSeconds: 60 }, target: { handler: 'noop' } },
    });
    const refused = await gql(api, token, `mutation CreateOverQuota($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`, {
      input: { name: 'fourth', paused: true, schedule: { intervalSeconds: 60 }, target: { handler: 'noop' } },
    });
    expect(refused.errors?.[0].extensions?.code).toBe('QUOTA_EXCEEDED');

    const statuses = async (jobId: string) =>
      ((await gqlOk(api, token, EXECUTIONS, { jobId })).executions.edges as { node: { status: string; trigger: string } }[]).map(
        (e) => e.node,
      );
    await waitUntil(
      'the broken job to fail',
      async () => ((await statuses(broken)).some((e) => e.status === 'FAILED') ? true : undefined),
      20_000,
    );
    await waitUntil(
      'scheduled and manual runs of tick',
      async () => {
        const runs = (await statuses(tick)).filter((e) => e.status === 'SUCCEEDED');
        return runs.some((e) => e.trigger === 'SCHEDULE') && runs.some((e) => e.trigger === 'MANUAL') ? true : undefined;
      },
      20_000,
    );
    await events.waitFor((items) => items.length > 0, 10_000);
    // A few sweep passes after the ones that materialised what ran (waited for: a loaded machine sweeps late).
    const passes = async () => total(await scrape(urls.scheduler), 'kairos_sweep_pass_duration_seconds_count');
    const enough = (await passes()) + 3;
    await waitUntil('three more sweep passes', async () => ((await passes()) >= enough ? true : undefined), 20_000);
    for (const role of ['api', 'scheduler', 'worker'] as const) after[role] = await scrape(urls[role]);
  }, 90_000);

  afterAll(async () => {
    await client?.dispose();
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.all(children.filter((c) => c.exitCode === null && c.signalCode === null).map((c) => once(c, 'exit')));
    await dropTestState(name, name);
  }, 30_000);

  const moved = (role: Role, metric: string, labels: Record<string, string> = {}) =>
    total(after[role], metric, labels) - total(before[role], metric, labels);

  it('api: GraphQL operations by name and code with latency, quota refusals, subscriptions and events, process metrics', () => {
    expect(moved('api', 'kairos_graphql_operations_total')).toBeGreaterThanOrEqual(8);
    expect(
      total(after.api, 'kairos_graphql_operations_total', { operation: 'CreateOverQuota', type: 'mutation', code: 'QUOTA_EXCEEDED' }),
    ).toBe(1);
    expect(moved('api', 'kairos_graphql_operations_total', { operation: 'anonymous', type: 'query', code: 'none' })).toBeGreaterThan(0);
    expect(moved('api', 'kairos_graphql_operation_duration_seconds_count')).toBe(moved('api', 'kairos_graphql_operations_total'));
    expect(moved('api', 'kairos_quota_refusals_total', { kind: 'max_jobs' })).toBe(1);
    expect(total(after.api, 'kairos_subscriptions_open')).toBe(1);
    expect(moved('api', 'kairos_subscription_events_sent_total')).toBeGreaterThan(0);
    expect(moved('api', 'process_cpu_seconds_total')).toBeGreaterThan(0);
    // No label carries a tenant, job or execution id by default.
    const labelValues = after.api.samples.flatMap((s) => Object.values(s.labels)).join(' ');
    expect(labelValues).not.toMatch(/kt_metrics_/);
  });

  it('scheduler: leader status and change, sweep passes with their jobs and occurrences, how far behind, queue depth', () => {
    expect(total(after.scheduler, 'kairos_scheduler_leader')).toBe(1);
    expect(total(after.scheduler, 'kairos_scheduler_leadership_changes_total', { change: 'acquired' })).toBe(1);
    expect(moved('scheduler', 'kairos_sweep_pass_duration_seconds_count')).toBeGreaterThan(2);
    expect(moved('scheduler', 'kairos_sweep_jobs_per_pass_sum')).toBeGreaterThan(0);
    expect(moved('scheduler', 'kairos_sweep_occurrences_per_pass_sum')).toBeGreaterThan(0);
    expect(total(after.scheduler, 'kairos_sweep_last_pass_timestamp_seconds')).toBeGreaterThan(
      total(before.scheduler, 'kairos_sweep_last_pass_timestamp_seconds'),
    );
    expect(total(after.scheduler, 'kairos_sweep_behind_seconds')).toBeLessThan(5);
    expect(after.scheduler.families.has('kairos_reconcile_repairs_total')).toBe(true);
    for (const queue of ['executions-io', 'executions-cpu']) {
      for (const state of ['waiting', 'delayed', 'active']) {
        expect(
          after.scheduler.samples.some((s) => s.name === 'kairos_queue_depth' && s.labels.queue === queue && s.labels.state === state),
        ).toBe(true);
      }
    }
    // The tick job's next occurrences wait in the IO queue as delayed entries.
    expect(total(after.scheduler, 'kairos_queue_depth', { queue: 'executions-io', state: 'delayed' })).toBeGreaterThan(0);
  });

  it('worker: executions finished by status and trigger, attempts by outcome with durations, retries, start lag', () => {
    expect(moved('worker', 'kairos_executions_finished_total', { status: 'SUCCEEDED', trigger: 'SCHEDULE' })).toBeGreaterThan(0);
    expect(moved('worker', 'kairos_executions_finished_total', { status: 'SUCCEEDED', trigger: 'MANUAL' })).toBe(1);
    expect(moved('worker', 'kairos_executions_finished_total', { status: 'FAILED', trigger: 'SCHEDULE' })).toBe(1);
    expect(moved('worker', 'kairos_attempts_total', { outcome: 'FAILED', workload: 'IO_BOUND' })).toBe(2);
    expect(moved('worker', 'kairos_attempts_total', { outcome: 'SUCCEEDED' })).toBeGreaterThanOrEqual(2);
    expect(moved('worker', 'kairos_attempt_duration_seconds_count')).toBe(moved('worker', 'kairos_attempts_total'));
    expect(moved('worker', 'kairos_retries_total', { workload: 'IO_BOUND' })).toBe(1);
    // One start-lag observation per first attempt (the broken job's retry is not one); a tick may be running at the scrape.
    const finished = moved('worker', 'kairos_executions_finished_total');
    expect(moved('worker', 'kairos_execution_start_lag_seconds_count')).toBeGreaterThanOrEqual(finished);
    expect(moved('worker', 'kairos_execution_start_lag_seconds_count')).toBeLessThanOrEqual(finished + 2);
    expect(total(after.worker, 'kairos_execution_start_lag_seconds_bucket', { le: '60' })).toBe(
      total(after.worker, 'kairos_execution_start_lag_seconds_count'),
    );
    expect(after.worker.families.get('kairos_takeovers_total')).toBe('counter');
    expect(after.worker.samples.some((s) => s.name === 'kairos_queue_depth')).toBe(true);
  });

  it('the dashboard queries only metrics these scrapes found', () => {
    const found = new Map<string, string>();
    for (const role of ['api', 'scheduler', 'worker'] as const) for (const [family, type] of after[role].families) found.set(family, type);
    const dashboard = JSON.parse(readFileSync('deploy/grafana/kairos.json', 'utf8')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    const missing = dashboard.panels.flatMap((p) =>
      p.targets.flatMap((t) =>
        metricNamesIn(t.expr)
          .filter((n) => !familyOf(n, found))
          .map((n) => `${p.title}: ${n}`),
      ),
    );
    expect(missing).toEqual([]);
  });

  it('closing the subscription closes it in the gauge', async () => {
    await client?.dispose();
    client = null;
    await waitUntil(
      'no open subscription',
      async () => (total(await scrape(urls.api), 'kairos_subscriptions_open') === 0 ? true : undefined),
      10_000,
    );
  });
});

/**
 * Operation names are bounded per process (200), so only an authenticated caller's validated
 * operation may take a slot: names sent without credentials, or in documents that do not validate,
 * are counted under fixed labels and leave the slots to the real operations.
 */
describe('operation names in the metrics of a process with every role', () => {
  let k: TestKairos;
  const token = tokenFor(uniqueName('opnames'), 'member');

  beforeAll(async () => {
    k = await startTestKairos('opnames');
  });
  afterAll(async () => {
    await k?.stop();
  });

  it('serves one /metrics, on METRICS_PORT only, with every role in it', async () => {
    expect(new URL(k.kairos.metricsUrl).port).not.toBe(new URL(k.url).port);
    const metrics = await fetch(new URL('/metrics', k.url));
    expect(metrics.status).toBe(404);
    expect(await metrics.text()).not.toMatch(/kairos_/);
    expect((await fetch(new URL('/healthz', k.url))).status).toBe(200);
    expect((await fetch(new URL('/readyz', k.url))).status).toBe(200);
    const scraped = await scrape(k.kairos.metricsUrl);
    // The api's, the scheduler's and the worker's families, from one registry.
    for (const family of ['kairos_graphql_operations_total', 'kairos_scheduler_leader', 'kairos_attempts_total'])
      expect(scraped.families.has(family)).toBe(true);
  });

  it('counts unauthenticated and invalid operations without their names, which leaves the slots to real operations', async () => {
    for (let i = 0; i < 210; i++) {
      const refused = await gql(k.url, null, `query Probe${i} { viewer { tenantId } }`);
      expect(refused.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
    }
    // Valid without credentials (no resolver runs), still not counted by name.
    await gql(k.url, null, `query Typename { __typename }`);
    const invalid = await gql(k.url, token, `query Misspelt { viewr { tenantId } }`);
    expect(invalid.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    await gqlOk(k.url, token, `query RealOperation { viewer { tenantId } }`);

    const after = await scrape(k.kairos.metricsUrl);
    const operations = new Set(after.samples.filter((s) => s.name === 'kairos_graphql_operations_total').map((s) => s.labels.operation));
    expect([...operations].filter((o) => /^Probe|^Typename$|^Misspelt$/.test(o))).toEqual([]);
    expect(total(after, 'kairos_graphql_operations_total', { operation: 'unauthenticated', code: 'UNAUTHENTICATED' })).toBe(210);
    expect(total(after, 'kairos_graphql_operations_total', { operation: 'unauthenticated', code: 'none' })).toBe(1);
    expect(total(after, 'kairos_graphql_operations_total', { operation: 'invalid', code: 'BAD_USER_INPUT' })).toBe(1);
    expect(total(after, 'kairos_graphql_operations_total', { operation: 'RealOperation', type: 'query', code: 'none' })).toBe(1);
    expect(total(after, 'kairos_graphql_operations_total', { operation: 'other' })).toBe(0);
  }, 30_000);
});
