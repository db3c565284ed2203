import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { newApiKeySecret } from '../../src/apiKeys/apiKeySecret.js';
import { signDevToken } from '../../src/auth/verifyToken.js';
import { dropTestState, tokenFor, uniqueName } from '../support/harness.js';
import { gqlOk } from '../support/graphqlClient.js';
import { startReceiver } from '../support/httpReceiver.js';
import { deploymentEnv, startProcess } from '../support/processes.js';
import { waitUntil } from '../support/waitFor.js';

/** A lower-case API key: a host name in a DNS error comes back lower-cased, and the test looks for the exact string. */
function lowerCaseApiKey(): string {
  return 'kairos_' + Array.from(randomBytes(43), (b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');
}

/**
 * Feeds secrets through every path that logs (refused JWT, wrong API key, webhook secret rotation,
 * an HTTP target whose URL, headers and error carry tokens, a handler whose error carries a JWT)
 * into a Kairos process (`node dist/main.js`, its real stderr), then looks for them in what it wrote.
 */
describe('secrets never reach the log', () => {
  const name = uniqueName('logsecret');
  const tenant = uniqueName('logsecret');
  const secrets: string[] = [];
  const dir = mkdtempSync(path.join(tmpdir(), 'kairos-logsecret-'));
  let child: ChildProcess | null = null;
  let stderr: () => string = () => '';
  let url = '';
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const lines = () =>
    stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  beforeAll(async () => {
    receiver = await startReceiver(() => ({ status: 500, body: 'boom' }));
    // A handler that fails with the token its payload carries in the message, as a careless upstream client would.
    const handlers = path.join(dir, 'handlers.mjs');
    writeFileSync(
      handlers,
      'export const handlers = { leaky: async ({ payload }) => { throw new Error(`upstream refused Bearer ${payload.token} for this call`); } };\n',
    );
    const started = await startProcess(
      deploymentEnv(
        { dbName: name, prefix: name },
        { ROLES: 'api,scheduler,worker', ALLOW_PRIVATE_TARGETS: 'true', HANDLERS_MODULE: handlers, LOG_LEVEL: 'info' },
      ),
    );
    ({ child, stderr, url } = started);
  });
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await receiver.close();
    await dropTestState(name, name);
    rmSync(dir, { recursive: true, force: true });
  });

  const createJob = (token: string, input: Record<string, unknown>) =>
    gqlOk(url, token, `mutation($i: CreateJobInput!) { createJob(input: $i) { job { id } } }`, {
      i: { paused: true, schedule: { intervalSeconds: 3600 }, retryPolicy: { maxAttempts: 1 }, ...input },
    }).then((data) => data.createJob.job.id as string);
  const trigger = (token: string, id: string) =>
    gqlOk(url, token, `mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }`, { id });
  // Log lines name a job by the id the API gives it.
  const attemptLine = (jobId: string) =>
    waitUntil(
      `an attempt-failed line for job ${jobId}`,
      async () => lines().find((l) => l.msg === 'attempt failed' && l.jobId === jobId),
      20_000,
    );

  it('logs each failure without the secret it carried', async () => {
    const admin = tokenFor(tenant, 'admin');
    secrets.push(admin);

    // A JWT signed with another secret: refused, logged as "authentication failed".
    const forged = signDevToken('not-the-kairos-secret-but-long-enough', { tenantId: tenant, role: 'admin' });
    secrets.push(forged);
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${forged}` },
      body: '{"query":"{ viewer { tenantId } }"}',
    });

    // An API key of the right shape that does not exist.
    const wrongKey = newApiKeySecret();
    secrets.push(wrongKey);
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${wrongKey}` },
      body: '{"query":"{ viewer { tenantId } }"}',
    });
    await waitUntil(
      'two auth-failure lines',
      async () => (lines().filter((l) => l.msg === 'authentication failed').length >= 2 ? true : undefined),
      5_000,
    );

    // A rotated webhook secret, then an HTTP attempt signed with it that fails (500).
    const webhookSecret = (await gqlOk(url, admin, `mutation { rotateWebhookSecret { secret } }`)).rotateWebhookSecret.secret as string;
    secrets.push(webhookSecret);
    const queryJwt = tokenFor(tenant, 'admin', 600);
    secrets.push(queryJwt);
    const signed = await createJob(admin, {
      name: 'signed',
      target: {
        http: { url: `${receiver.url}/hook?token=${queryJwt}`, headers: [{ name: 'Authorization', value: `Bearer ${queryJwt}` }] },
      },
    });
    await trigger(admin, signed);

    // An HTTP target whose host is token-shaped: the operators' line on the failed lookup names the host.
    const hostKey = lowerCaseApiKey();
    secrets.push(hostKey);
    const unreachable = await createJob(admin, {
      name: 'token-host',
      target: { http: { url: `http://${hostKey}.invalid/hook?apiKey=${wrongKey}` } },
    });
    await trigger(admin, unreachable);

    // A handler whose error message carries a JWT.
    const handlerJwt = signDevToken('some-upstream-secret-of-enough-length', { tenantId: 'upstream', role: 'admin' });
    secrets.push(handlerJwt);
    const leaky = await createJob(admin, { name: 'leaky', target: { handler: 'leaky' }, payload: { token: handlerJwt } });
    await trigger(admin, leaky);

    const signedLine = await attemptLine(signed);
    const hostLine = await attemptLine(unreachable);
    const leakyLine = await attemptLine(leaky);
    expect(receiver.received.some((r) => r.url.includes(queryJwt) && r.headers['x-kairos-signature'])).toBe(true);
    // The lines are there, with what an operator needs, the secrets replaced.
    expect(signedLine).toMatchObject({ level: 'warn', service: 'kairos', tenantId: tenant, outcome: 'FAILED' });
    // The attempt records the neutral error; the operators' line names the host, redacted.
    expect(hostLine.error).toBe('target address not allowed or not resolvable');
    const lookupLine = lines().find((l) => l.msg === 'could not resolve an HTTP target host');
    expect(String(lookupLine?.host)).toMatch(/\[REDACTED\]/);
    expect(String(leakyLine.error)).toBe('upstream refused Bearer [REDACTED] for this call');
    expect(lines().filter((l) => l.msg === 'authentication failed')).toHaveLength(2);
    for (const line of lines())
      expect(line).toEqual(
        expect.objectContaining({
          time: expect.any(String),
          level: expect.stringMatching(/^(info|warn|error)$/),
          msg: expect.any(String),
          service: 'kairos',
        }),
      );

    const raw = stderr();
    const found = secrets.filter((secret) => raw.includes(secret) || raw.toLowerCase().includes(secret.toLowerCase()));
    expect(found).toEqual([]);
  });
});
