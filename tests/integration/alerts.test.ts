// Covers: src/alerts/alertEvaluator.ts, src/alerts/alertStates.ts, src/alerts/alertDeliveries.ts, src/alerts/alertDeliverer.ts,
// src/alerts/overdueCheck.ts, src/alerts/alertSettings.ts, src/resolvers/alert.resolver.ts, src/resolvers/alertMappers.ts,
// src/schema/alert.input.ts, src/schema/alert.type.ts, src/store/alertRecords.ts, src/store/alertSettingsStore.ts, src/store/alertStore.ts, src/roles/alertsFactory.ts,
// src/events/alertEventBus.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { startReceiver, type ReceivedRequest } from '../support/httpReceiver.js';
import { signatureV2Valid } from '../support/webhookSignature.js';
import { waitUntil } from '../support/waitFor.js';
import { EventCollector, wsClient } from '../support/subscriptions.js';

const ROTATE = `mutation { rotateWebhookSecret(gracePeriodSeconds: 0) { secret } }`;
const CREATE_CHANNEL = `mutation($input: CreateAlertChannelInput!) { createAlertChannel(input: $input) { id name url format } }`;
const CREATE_RULE = `mutation($input: CreateAlertRuleInput!) { createAlertRule(input: $input) { id kind threshold jobId channelId } }`;
const CREATE_JOB = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const PAUSE = `mutation($id: ID!) { pauseJob(id: $id) { job { id } } }`;
const RAISED = `subscription($jobId: ID) { alertRaised(jobId: $jobId) { id jobId state kind delivery { status } } }`;
const ALERTS = `query($jobId: ID, $first: Int, $after: String) { alerts(jobId: $jobId, first: $first, after: $after) {
  edges { cursor node { id ruleId channelId jobId executionId kind state reason raisedAt delivery { status attempts statusCode error deliveredAt } } }
  pageInfo { hasNextPage endCursor } } }`;

/** A tenant of its own, its webhook secret, and an alert channel pointing at a receiver that answers 503 to its first request. */
async function tenantWithChannel(url: string, label: string) {
  const token = tokenFor(uniqueName(label), 'admin');
  const { secret } = (await gqlOk(url, token, ROTATE)).rotateWebhookSecret;
  const receiver = await startReceiver((_req, index) => ({ status: index === 0 ? 503 : 200 }));
  const channel = (await gqlOk(url, token, CREATE_CHANNEL, { input: { name: label, url: `${receiver.url}/alerts` } })).createAlertChannel;
  return { token, secret: secret as string, receiver, channel };
}

/** The alert bodies the receiver accepted (its 2xx answers: every request but the first). */
const accepted = (received: ReceivedRequest[]) => received.slice(1).map((r) => JSON.parse(r.body));

describe('alerts per job', () => {
  let k: TestKairos;
  let workers: TestKairos | null = null;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    const env = { ALERT_OVERDUE_CHECK_MS: '300', ALERT_DELIVERY_BACKOFF_MS: '200' };
    // The workers run in a process of their own, so the overdue case can stop them and keep the rest.
    k = await startTestKairos('alerts', { roles: ['api', 'scheduler'], env });
    workers = await startTestKairos('alerts', { roles: ['worker'], env, joining: k });
  });
  afterAll(async () => {
    for (const close of closers) await close();
    await workers?.stop();
    await k?.stop();
  });

  it('refuses a rule without its threshold, on an unknown channel, and a channel that is not http(s)', async () => {
    const token = tokenFor(uniqueName('alert-input'), 'admin');
    const bad = await gql(k.url, token, CREATE_CHANNEL, { input: { name: 'x', url: 'ftp://example.com' } });
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    // fetch would refuse it at every delivery, quoting the URL in the error every role reads.
    const credentials = await gql(k.url, token, CREATE_CHANNEL, {
      input: { name: 'x', url: 'https://user:s3cr3t-in-url@example.com/hook' },
    });
    expect(credentials.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'url' } });
    expect(credentials.errors?.[0]?.message).not.toContain('s3cr3t-in-url');
    const channel = (await gqlOk(k.url, token, CREATE_CHANNEL, { input: { name: 'x', url: 'https://example.com/hook', format: 'SLACK' } }))
      .createAlertChannel;
    expect(channel.format).toBe('SLACK');
    const noThreshold = await gql(k.url, token, CREATE_RULE, { input: { channelId: channel.id, kind: 'CONSECUTIVE_FAILURES' } });
    expect(noThreshold.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(noThreshold.errors?.[0]?.message).toMatch(/threshold of 1 to 1000/);
    const unknown = await gql(k.url, token, CREATE_RULE, { input: { channelId: 'nope', kind: 'SKIPPED' } });
    expect(unknown.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it("deletes a job's alert rules with the job, and records each in the change history", async () => {
    const token = tokenFor(uniqueName('alert-delete'), 'admin');
    const channel = (await gqlOk(k.url, token, CREATE_CHANNEL, { input: { name: 'x', url: 'https://example.com/hook' } }))
      .createAlertChannel;
    const job = (
      await gqlOk(k.url, token, CREATE_JOB, {
        input: { name: 'doomed', schedule: { intervalSeconds: 3600 }, target: { handler: 'noop' }, paused: true },
      })
    ).createJob.job;
    const own = (await gqlOk(k.url, token, CREATE_RULE, { input: { channelId: channel.id, jobId: job.id, kind: 'SKIPPED' } }))
      .createAlertRule;
    const all = (await gqlOk(k.url, token, CREATE_RULE, { input: { channelId: channel.id, kind: 'SKIPPED' } })).createAlertRule;
    await gqlOk(k.url, token, `mutation($id: ID!) { deleteJob(id: $id) { deletedJobId } }`, { id: job.id });
    const rules = (await gqlOk(k.url, token, `{ alertRules { id } }`)).alertRules.map((r: { id: string }) => r.id);
    expect(rules).toEqual([all.id]);
    const changes = (
      await gqlOk(k.url, token, `query($f: ChangeFilter) { changes(first: 10, filter: $f) { edges { node { action target { id } } } } }`, {
        f: { jobId: job.id },
      })
    ).changes.edges.map((e: { node: { action: string; target: { id: string } } }) => e.node);
    expect(changes).toContainEqual({ action: 'DELETE_ALERT_RULE', target: { id: own.id } });
  });

  it('sends one alert after 3 failed executions and one recovery when the job succeeds again, signed, none in between', async () => {
    const { token, secret, receiver, channel } = await tenantWithChannel(k.url, 'alert-failing');
    closers.push(() => receiver.close());
    // The job's target fails its first 5 executions, then succeeds.
    const target = await startReceiver((_req, index) => ({ status: index < 5 ? 500 : 200 }));
    closers.push(() => target.close());
    const rule = (await gqlOk(k.url, token, CREATE_RULE, { input: { channelId: channel.id, kind: 'CONSECUTIVE_FAILURES', threshold: 3 } }))
      .createAlertRule;
    expect(rule).toMatchObject({ kind: 'CONSECUTIVE_FAILURES', threshold: 3, jobId: null });
    const jobId = (
      await gqlOk(k.url, token, CREATE_JOB, {
        input: {
          name: 'flaky',
          schedule: { intervalSeconds: 1 },
          target: { http: { url: `${target.url}/run`, method: 'POST' } },
          retryPolicy: { maxAttempts: 1 },
        },
      })
    ).createJob.job.id;
    // Live: this tenant's subscribers, narrowed to the job or not, see both; another tenant's none.
    const client = wsClient(k.url, token);
    const otherClient = wsClient(k.url, tokenFor(uniqueName('alert-other'), 'admin'));
    closers.push(async () => {
      await client.dispose();
      await otherClient.dispose();
    });
    const raised = new EventCollector<any>(client, RAISED, { jobId });
    const raisedAll = new EventCollector<any>(client, RAISED, {});
    const raisedOther = new EventCollector<any>(otherClient, RAISED, {});
    // 5 failures, then 3 successes: the recovery is sent at the first, none after.
    await target.waitForRequests(8, 30_000);
    await gqlOk(k.url, token, PAUSE, { id: jobId });
    await receiver.waitForRequests(3, 20_000);
    // Time for a wrongly repeated alert to arrive (there is no event for an alert that is not sent).
    await sleep(1500);
    const bodies = accepted(receiver.received);
    expect(bodies.map((b) => b.state)).toEqual(['FAILING', 'RECOVERED']);
    for (const events of [raised, raisedAll]) {
      await events.waitFor((items) => items.length >= 2, 5000);
      expect(events.items.map((e) => [e.alertRaised.state, e.alertRaised.jobId, e.alertRaised.delivery.status])).toEqual([
        ['FAILING', jobId, 'PENDING'],
        ['RECOVERED', jobId, 'PENDING'],
      ]);
    }
    expect(raisedOther.items).toEqual([]);
    expect(bodies[0]).toMatchObject({ jobId, ruleId: rule.id, kind: 'CONSECUTIVE_FAILURES', reason: '3 consecutive failed executions' });
    // Signed as a delivery: X-Kairos-Signature-V2 over the alert id sent as X-Kairos-Execution-Id.
    for (const request of receiver.received) {
      expect(signatureV2Valid(request, secret, `${receiver.url}/alerts`)).toBe(true);
      expect(request.headers['x-kairos-alert-id']).toBe(request.headers['x-kairos-execution-id']);
    }
    expect(signatureV2Valid(receiver.received[1], 'another secret', `${receiver.url}/alerts`)).toBe(false);

    // Recorded, newest first, with the delivery's outcome: the first was answered 503 and retried.
    const data = await waitUntil(
      'both deliveries recorded',
      async () => {
        const page = (await gqlOk(k.url, token, ALERTS, { jobId })).alerts;
        return page.edges.every((e: any) => e.node.delivery.status === 'DELIVERED') ? page : undefined;
      },
      10_000,
    );
    const nodes = data.edges.map((e: any) => e.node);
    expect(nodes.map((n: any) => n.state)).toEqual(['RECOVERED', 'FAILING']);
    const failing = nodes[1];
    expect(failing.delivery).toMatchObject({ status: 'DELIVERED', attempts: 2, statusCode: 200, error: null });
    expect(nodes[0].delivery).toMatchObject({ status: 'DELIVERED', attempts: 1 });
    expect(failing.executionId).toEqual(expect.any(String));
    expect(bodies[0].alertId).toBe(failing.id);

    // The connection pages by cursor.
    const first = (await gqlOk(k.url, token, ALERTS, { jobId, first: 1 })).alerts;
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = (await gqlOk(k.url, token, ALERTS, { jobId, first: 1, after: first.pageInfo.endCursor })).alerts;
    expect(second.edges.map((e: any) => e.node.id)).toEqual([failing.id]);
    // Another tenant sees none of them.
    const other = (await gqlOk(k.url, tokenFor(uniqueName('alert-other')), ALERTS, {})).alerts;
    expect(other.edges).toEqual([]);
  });

  it('sends one alert naming the reason when an occurrence is SKIPPED', async () => {
    const { token, receiver, channel } = await tenantWithChannel(k.url, 'alert-skipped');
    closers.push(() => receiver.close());
    await gqlOk(k.url, token, CREATE_RULE, { input: { channelId: channel.id, kind: 'SKIPPED' } });
    // Each execution outlasts the interval: the overlap policy skips the occurrences due meanwhile.
    const jobId = (
      await gqlOk(k.url, token, CREATE_JOB, {
        input: {
          name: 'slow',
          schedule: { intervalSeconds: 1 },
          target: { handler: 'sleep' },
          payload: { ms: 4000 },
          overlapPolicy: 'SKIP',
        },
      })
    ).createJob.job.id;
    await receiver.waitForRequests(2, 20_000);
    await gqlOk(k.url, token, PAUSE, { id: jobId });
    const [body] = accepted(receiver.received);
    expect(body).toMatchObject({ jobId, kind: 'SKIPPED', state: 'SKIPPED' });
    expect(body.reason).toMatch(/^overlap policy SKIP: execution .+ of this job was still running$/);
    // Skips go on while the execution runs: still one alert for that state.
    await sleep(1500);
    expect(accepted(receiver.received)).toHaveLength(1);
  });

  it('sends an overdue alert when the workers are stopped', async () => {
    const { token, receiver, channel } = await tenantWithChannel(k.url, 'alert-overdue');
    closers.push(() => receiver.close());
    await gqlOk(k.url, token, CREATE_RULE, { input: { channelId: channel.id, kind: 'OVERDUE', threshold: 2 } });
    await workers!.stop();
    workers = null;
    const jobId = (
      await gqlOk(k.url, token, CREATE_JOB, { input: { name: 'stranded', schedule: { intervalSeconds: 1 }, target: { handler: 'noop' } } })
    ).createJob.job.id;
    await receiver.waitForRequests(2, 20_000);
    const [body] = accepted(receiver.received);
    expect(body).toMatchObject({ jobId, kind: 'OVERDUE', state: 'OVERDUE' });
    expect(body.reason).toMatch(/^due at .+, not started \d+ s later$/);
    // Every later occurrence is overdue too, but the job's state did not change: one alert.
    await sleep(1500);
    expect(accepted(receiver.received)).toHaveLength(1);
    await gqlOk(k.url, token, PAUSE, { id: jobId });
  });
});
