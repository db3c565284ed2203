// Covers: src/ids/logFields.ts, src/workers/attemptLogger.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { fromGlobalId } from '../../src/ids/globalId.js';
import { createLogger } from '../../src/logger.js';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gqlOk } from '../support/graphqlClient.js';
import { startReceiver } from '../support/httpReceiver.js';
import { waitUntil } from '../support/waitFor.js';

describe('log lines for failures', () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ test: 'failureLogs' }, 'info', (line) => lines.push(JSON.parse(line)));
  const tenant = uniqueName('faillog');
  let k: TestKairos;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver(() => ({ status: 500, body: 'boom' }));
    k = await startTestKairos('faillog', { logger, env: { ALLOW_PRIVATE_TARGETS: 'true' } });
  });
  afterAll(async () => {
    await k.stop();
    await receiver.close();
  });

  it('writes one line per failed attempt with tenant, job and execution ids', async () => {
    const token = tokenFor(tenant, 'member');
    const job = (
      await gqlOk(k.url, token, `mutation($i: CreateJobInput!) { createJob(input: $i) { job { id } } }`, {
        i: {
          name: 'fails',
          paused: true,
          schedule: { intervalSeconds: 3600 },
          target: { http: { url: `${receiver.url}/hook` } },
          retryPolicy: { maxAttempts: 1 },
        },
      })
    ).createJob.job;
    const { execution } = (await gqlOk(k.url, token, `mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }`, { id: job.id }))
      .triggerJob;
    const line = await waitUntil(
      'an attempt-failed log line',
      async () => lines.find((l) => l.msg === 'attempt failed' && l.tenantId === tenant),
      15_000,
    );
    expect(line).toMatchObject({ level: 'warn', attempt: 1, outcome: 'FAILED', next: 'FAILED' });
    // The ids users see (API, dashboard, CLI), so one copied from them finds the line; the raw ObjectIds beside them.
    expect(line).toMatchObject({
      jobId: job.id,
      executionId: execution.id,
      jobObjectId: fromGlobalId(job.id, 'Job')!.id.toHexString(),
      executionObjectId: fromGlobalId(execution.id, 'Execution')!.id.toHexString(),
    });
  });

  it('writes the line for a refused target too, saying it was refused (not retried)', async () => {
    const strict = await startTestKairos('faillog_strict', { logger, env: { ALLOW_PRIVATE_TARGETS: 'false' } });
    try {
      const strictTenant = uniqueName('faillog_strict');
      const token = tokenFor(strictTenant, 'member');
      const job = (
        await gqlOk(strict.url, token, `mutation($i: CreateJobInput!) { createJob(input: $i) { job { id } } }`, {
          i: {
            name: 'refused',
            paused: true,
            schedule: { intervalSeconds: 3600 },
            target: { http: { url: `${receiver.url.replace('127.0.0.1', 'localhost')}/hook` } },
          },
        })
      ).createJob.job;
      const { execution } = (
        await gqlOk(strict.url, token, `mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }`, { id: job.id })
      ).triggerJob;
      const line = await waitUntil(
        'a refused-target log line',
        async () => lines.find((l) => l.msg === 'attempt failed' && l.tenantId === strictTenant),
        15_000,
      );
      expect(String(line.error)).toBe('target address not allowed or not resolvable');
      expect(line).toMatchObject({ level: 'warn', attempt: 1, next: 'FAILED' });
      // The operators' line says what was refused and whose attempt it was.
      const refusal = lines.find((l) => l.msg === 'refused an HTTP target address' && l.tenantId === strictTenant);
      expect(refusal).toMatchObject({
        level: 'warn',
        jobId: job.id,
        executionId: execution.id,
        attempt: 1,
        host: 'localhost',
        address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/),
      });
    } finally {
      await strict.stop();
    }
  });

  it('logs a refused token, saying which check failed and not the token', async () => {
    const bad = tokenFor(tenant, 'member').slice(0, -4) + 'AAAA';
    await fetch(k.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${bad}` },
      body: '{"query":"{ viewer { tenantId } }"}',
    });
    const line = await waitUntil('an auth-failure log line', async () => lines.find((l) => l.msg === 'authentication failed'), 5_000);
    expect(line).toMatchObject({ level: 'warn', code: 'UNAUTHENTICATED' });
    expect(String(line.reason)).toMatch(/signature/);
    expect(JSON.stringify(line)).not.toContain(bad);
  });
});
