import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from 'graphql-ws';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gqlOk } from '../support/graphqlClient.js';
import { EventCollector, wsClient } from '../support/subscriptions.js';
import { startReceiver } from '../support/httpReceiver.js';

describe('HTTP targets on private addresses, with ALLOW_PRIVATE_TARGETS off', () => {
  let k: TestKairos;
  let client: Client;
  const token = tokenFor(uniqueName('ssrf'), 'member');
  const receiver = startReceiver(() => ({ status: 200, body: 'internal secret' }));

  beforeAll(async () => {
    k = await startTestKairos('ssrf', { env: { ALLOW_PRIVATE_TARGETS: 'false' } });
    client = wsClient(k.url, token);
  });
  afterAll(async () => {
    await client?.dispose();
    await (await receiver).close();
    await k?.stop();
  });

  it('fails the attempt with a neutral error and never sends the request', async () => {
    const r = await receiver;
    const { createJob } = await gqlOk(k.url, token, `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`, {
      input: { name: 'internal', schedule: { intervalSeconds: 31_536_000 }, target: { http: { url: r.url.replace('127.0.0.1', 'localhost') } }, retryPolicy: { maxAttempts: 1 } },
    });
    const events = new EventCollector<any>(client, `subscription($jobId: ID) { executionUpdated(jobId: $jobId, statuses: [FAILED]) { execution { id } } }`, { jobId: createJob.job.id });
    const { triggerJob } = await gqlOk(k.url, token, `mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }`, { id: createJob.job.id });
    await events.waitFor((items) => items.length > 0, 15_000);
    events.stop();
    const { execution } = await gqlOk(k.url, token, `query($id: ID!) { execution(id: $id) { status error result attempts { outcome error } } }`, { id: triggerJob.execution.id });
    expect(execution.status).toBe('FAILED');
    expect(execution.result).toBeNull();
    // Neutral: the tenant is not told what the name resolved to (that would map internal DNS).
    expect(execution.attempts[0].error).toMatch(/target address not allowed$/);
    expect(`${execution.error} ${execution.attempts[0].error}`).not.toMatch(/127\.0\.0\.1|::1|resolves|localhost/);
    expect(r.received).toHaveLength(0);
  });
});
