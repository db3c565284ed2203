import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from 'graphql-ws';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
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

  const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
  const UPDATE = `mutation($input: UpdateJobInput!) { updateJob(input: $input) { job { id target { ... on HttpTarget { url method headers { name value } } } } } }`;
  const JOB = `query($id: ID!) { job(id: $id) { target { ... on HttpTarget { url method headers { name value } } } } }`;

  it('refuses a literal private address at createJob and updateJob, naming the setting', async () => {
    const r = await receiver;
    const refused = await gql(k.url, token, CREATE, {
      input: { name: 'literal', schedule: { intervalSeconds: 3600 }, target: { http: { url: `${r.url}/hook` } } },
    });
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'target.http.url' });
    expect(refused.errors?.[0]?.message).toMatch(/127\.0\.0\.1 is a private, loopback.*ALLOW_PRIVATE_TARGETS=true/);
    expect((await gqlOk(k.url, token, `{ jobs { totalCount } }`)).jobs.totalCount).toBe(0);

    const headers = [{ name: 'X-Team', value: 'billing' }];
    const { createJob } = await gqlOk(k.url, token, CREATE, {
      input: {
        name: 'public',
        schedule: { intervalSeconds: 3600 },
        target: { http: { url: 'https://hooks.example.com/a', method: 'PUT', headers } },
      },
    });
    const update = await gql(k.url, token, UPDATE, {
      input: { id: createJob.job.id, target: { http: { url: 'http://[::1]:9000/hook' } } },
    });
    expect(update.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'target.http.url' });
    expect((await gqlOk(k.url, token, JOB, { id: createJob.job.id })).job.target).toEqual({
      url: 'https://hooks.example.com/a',
      method: 'PUT',
      headers,
    });

    // A target is replaced whole: a new url alone drops the method and headers (documented on UpdateJobInput.target).
    const replaced = await gqlOk(k.url, token, UPDATE, {
      input: { id: createJob.job.id, target: { http: { url: 'https://hooks.example.com/b' } } },
    });
    expect(replaced.updateJob.job.target).toEqual({ url: 'https://hooks.example.com/b', method: 'POST', headers: [] });
    // An update that would leave no valid target is refused and changes nothing.
    for (const target of [{}, { http: { url: 'https://hooks.example.com/c' }, handler: 'noop' }, { handler: 'missing' }]) {
      const bad = await gql(k.url, token, UPDATE, { input: { id: createJob.job.id, target } });
      expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
    expect(await gql(k.url, token, UPDATE, { input: { id: createJob.job.id, target: null } })).toMatchObject({
      errors: [{ extensions: { code: 'BAD_USER_INPUT' } }],
    });
    expect((await gqlOk(k.url, token, JOB, { id: createJob.job.id })).job.target).toEqual({
      url: 'https://hooks.example.com/b',
      method: 'POST',
      headers: [],
    });
    await gqlOk(k.url, token, `mutation($id: ID!) { deleteJob(id: $id) { deletedJobId } }`, { id: createJob.job.id });
  });

  it('fails the attempt of a name that resolves to one with a clear error, once (not retried), and never sends the request', async () => {
    const r = await receiver;
    const { createJob } = await gqlOk(k.url, token, CREATE, {
      input: {
        name: 'internal',
        schedule: { intervalSeconds: 31_536_000 },
        target: { http: { url: r.url.replace('127.0.0.1', 'localhost') } },
        retryPolicy: { maxAttempts: 3, initialBackoffSeconds: 1 },
      },
    });
    const events = new EventCollector<any>(
      client,
      `subscription($jobId: ID) { executionUpdated(jobId: $jobId, statuses: [FAILED]) { execution { id } } }`,
      { jobId: createJob.job.id },
    );
    const { triggerJob } = await gqlOk(k.url, token, `mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }`, {
      id: createJob.job.id,
    });
    await events.waitFor((items) => items.length > 0, 15_000);
    events.stop();
    const { execution } = await gqlOk(
      k.url,
      token,
      `query($id: ID!) { execution(id: $id) { status error result attempts { outcome error } } }`,
      { id: triggerJob.execution.id },
    );
    expect(execution.status).toBe('FAILED');
    expect(execution.attempts).toHaveLength(1);
    expect(execution.result).toBeNull();
    // Neutral: the tenant is not told what the name resolved to (that would map internal DNS).
    expect(execution.attempts[0].error).toMatch(/target address not allowed$/);
    expect(`${execution.error} ${execution.attempts[0].error}`).not.toMatch(/127\.0\.0\.1|::1|resolves|localhost/);
    expect(r.received).toHaveLength(0);
  });
});
