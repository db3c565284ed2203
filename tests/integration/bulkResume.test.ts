// Covers: src/executions/bulkRunner.ts, src/executions/bulkLeases.ts, src/executions/bulkRetry.ts
import type { ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from '@jest/globals';
import { fromGlobalId } from '../../src/ids/globalId.js';
import { gqlOk } from '../support/graphqlClient.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { startReceiver } from '../support/httpReceiver.js';
import { insertFailedExecutions } from '../support/failedExecutions.js';
import { deploymentEnv, startProcess } from '../support/processes.js';
import { waitUntil } from '../support/waitFor.js';

const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const RETRY_ALL = `mutation($filter: ExecutionFilter!) { retryExecutions(filter: $filter) { id total } }`;
const OPERATION = `query($id: ID!) { bulkOperation(id: $id) { status total done failed errors { message } } }`;
const COUNT = 1000;

describe('a bulk retry whose api process is killed half way', () => {
  let k: TestKairos | null = null;
  const children: ChildProcess[] = [];
  const receiverReady = startReceiver(() => ({ status: 200 }));
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await k?.stop();
    await (await receiverReady).close();
  });

  it('is resumed by the next api process, and finishes with every execution delivered exactly once', async () => {
    const receiver = await receiverReady;
    const quotas = { DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '100000', ALLOW_PRIVATE_TARGETS: 'true' };
    // Workers (and the scheduler) in this process; the api, which runs bulk operations, as `node dist/main.js`.
    k = await startTestKairos('bulk-resume', { roles: ['scheduler', 'worker'], env: quotas });
    const apiEnv = deploymentEnv(k, {
      ROLES: 'api',
      ...quotas,
      BULK_EXECUTIONS_PER_SECOND: '100',
      BULK_LEASE_MS: '2000',
      BULK_CLAIM_EVERY_MS: '500',
    });
    const first = await startProcess(apiEnv);
    children.push(first.child);
    const tenant = uniqueName('bulk-resume');
    const token = tokenFor(tenant, 'member');
    const { createJob } = await gqlOk(first.url, token, CREATE, {
      input: { name: 'dead letters', schedule: { intervalSeconds: 31_536_000 }, target: { http: { url: `${receiver.url}/hook` } } },
    });
    await insertFailedExecutions(k.dbName, tenant, fromGlobalId(createJob.job.id, 'Job')!.id.toHexString(), COUNT, new Date());
    const { retryExecutions } = await gqlOk(first.url, token, RETRY_ALL, { filter: { jobId: createJob.job.id } });
    expect(retryExecutions.total).toBe(COUNT);

    const halfWay = await waitUntil(
      'progress under way',
      async () => {
        const { bulkOperation } = await gqlOk(first.url, token, OPERATION, { id: retryExecutions.id });
        return bulkOperation.done > 0 && bulkOperation.done < COUNT / 2 ? bulkOperation : undefined;
      },
      30_000,
      50,
    );
    first.child.kill('SIGKILL');
    expect(halfWay.status).toBe('RUNNING');

    const second = await startProcess(apiEnv);
    children.push(second.child);
    const final = await waitUntil(
      'the operation to finish in the new process',
      async () => {
        const { bulkOperation } = await gqlOk(second.url, token, OPERATION, { id: retryExecutions.id });
        return bulkOperation.status === 'RUNNING' ? undefined : bulkOperation;
      },
      60_000,
      200,
    );
    expect(final).toEqual({ status: 'SUCCEEDED', total: COUNT, done: COUNT, failed: 0, errors: [] });
    await receiver.waitForRequests(COUNT, 60_000);
    const delivered = receiver.received.map((r) => r.headers['x-kairos-execution-id']);
    expect(new Set(delivered).size).toBe(COUNT);
    expect(delivered).toHaveLength(COUNT);
  }, 150_000);
});
