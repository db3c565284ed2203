import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from 'graphql-ws';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { EventCollector, wsClient } from '../support/subscriptions.js';
import { startReceiver } from '../support/httpReceiver.js';
import { createLogger } from '../../src/logger.js';
import { waitUntil } from '../support/waitFor.js';

describe('HTTP targets on private addresses, with ALLOW_PRIVATE_TARGETS off', () => {
  let k: TestKairos;
  let client: Client;
  const token = tokenFor(uniqueName('ssrf'), 'member');
  const receiver = startReceiver(() => ({ status: 200, body: 'internal secret' }));
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ test: 'privateTargets' }, 'info', (line) => lines.push(JSON.parse(line)));

  beforeAll(async () => {
    k = await startTestKairos('ssrf', { logger, env: { ALLOW_PRIVATE_TARGETS: 'false' } });
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
    expect(execution.attempts[0].error).toBe('target address not allowed or not resolvable');
    expect(`${execution.error} ${execution.attempts[0].error}`).not.toMatch(/127\.0\.0\.1|::1|resolves|localhost/);
    expect(r.received).toHaveLength(0);
  });

  it('records the same attempt for a name that resolves to a private address as for one that does not resolve; only the log tells them apart', async () => {
    const r = await receiver;
    // `.invalid` never resolves (RFC 6761); localhost resolves to loopback, which is refused.
    const urls = { internal: r.url.replace('127.0.0.1', 'localhost'), unknown: 'http://no-such-host.invalid/hook' };
    const executions: Record<string, any> = {};
    for (const [name, url] of Object.entries(urls)) {
      const { createJob } = await gqlOk(k.url, token, CREATE, {
        input: {
          name: `same-${name}`,
          schedule: { intervalSeconds: 31_536_000 },
          target: { http: { url } },
          retryPolicy: { maxAttempts: 3, initialBackoffSeconds: 0.1 },
        },
      });
      const { triggerJob } = await gqlOk(k.url, token, `mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }`, {
        id: createJob.job.id,
      });
      executions[name] = await waitUntil(
        `the ${name} execution to fail`,
        async () => {
          const { execution } = await gqlOk(
            k.url,
            token,
            `query($id: ID!) { execution(id: $id) { status error result attempts { number outcome error httpStatus } } }`,
            { id: triggerJob.execution.id },
          );
          return execution.status === 'FAILED' ? execution : undefined;
        },
        15_000,
      );
    }
    // Same status, error, attempts (one each: neither is retried) and result: the tenant cannot tell an internal name from an unknown one.
    expect(executions.unknown).toEqual(executions.internal);
    expect(executions.unknown).toMatchObject({
      error: 'target address not allowed or not resolvable',
      result: null,
      attempts: [{ number: 1, outcome: 'FAILED', error: 'target address not allowed or not resolvable', httpStatus: null }],
    });
    expect(JSON.stringify(executions)).not.toMatch(/ENOTFOUND|getaddrinfo|no-such-host|localhost|127\.0\.0\.1/);
    // The operators' log says which: the address refused, or the lookup's error code, each with the attempt's ids.
    const refused = lines.find((l) => l.msg === 'refused an HTTP target address' && l.host === 'localhost');
    expect(refused).toMatchObject({ level: 'warn', attempt: 1, address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) });
    const unresolved = lines.find((l) => l.msg === 'could not resolve an HTTP target host');
    expect(unresolved).toMatchObject({ level: 'warn', attempt: 1, host: 'no-such-host.invalid', code: 'ENOTFOUND' });
    expect(unresolved?.executionId).toEqual(expect.any(String));
    expect(r.received).toHaveLength(0);
  });
});
