// Covers: src/tenants/rotateWebhookSecret.ts, src/tenants/revokePreviousWebhookSecret.ts, src/domain/webhookSecretRotation.ts,
// src/workers/runTarget.ts, src/resolvers/apiKey.resolver.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { startReceiver, type ReceivedRequest } from '../support/httpReceiver.js';
import { waitUntil } from '../support/waitFor.js';
import { signatureV2Valid, signatureValid, signaturesOf } from '../support/webhookSignature.js';

const ROTATE = `mutation($grace: Int) { rotateWebhookSecret(gracePeriodSeconds: $grace) { secret previousSecretExpiresAt } }`;
const REVOKE = `mutation { revokePreviousWebhookSecret { previousSecretExpiresAt rotatedAt } }`;
const VIEWER = `{ viewer { webhookSecretRotation { previousSecretExpiresAt rotatedAt } } }`;
const CREATE_JOB = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id target { ... on HttpTarget { url } } } } }`;
const TRIGGER = `mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }`;

/**
 * Rotating the webhook secret with a real worker and a local receiver: during the grace each
 * delivery verifies with the replaced secret and with the new one; once the grace is revoked or
 * over, with the new one alone.
 */
describe('webhook secret rotation: deliveries during and after the grace', () => {
  let k: TestKairos;
  const admin = tokenFor(uniqueName('webhook_rotation'), 'admin');
  const receiver = startReceiver(() => ({ status: 204 }));
  let jobId = '';
  let jobUrl = '';
  /** The secrets in the order they were made. */
  const secrets: string[] = [];

  /** Rotates with `grace` seconds and returns the answer; the new secret is appended to `secrets`. */
  async function rotate(grace: number | null): Promise<{ secret: string; previousSecretExpiresAt: string | null }> {
    const rotated = (await gqlOk(k.url, admin, ROTATE, { grace })).rotateWebhookSecret;
    secrets.push(rotated.secret);
    return rotated;
  }

  /** Triggers the job and returns the delivery the receiver got. */
  async function delivery(): Promise<ReceivedRequest> {
    const r = await receiver;
    const before = r.received.length;
    const executionId = (await gqlOk(k.url, admin, TRIGGER, { id: jobId })).triggerJob.execution.id as string;
    const request = (await r.waitForRequests(before + 1, 15_000))[before];
    expect(request.headers['x-kairos-execution-id']).toBe(executionId);
    return request;
  }

  /** Which of `secrets` the delivery's v2 and v1 headers verify with, and how many signatures each carries. */
  function verifiedWith(request: ReceivedRequest) {
    return {
      v2: secrets.map((s) => signatureV2Valid(request, s, jobUrl)),
      v1: secrets.map((s) => signatureValid(request, s)),
      signatures: [
        signaturesOf(request.headers['x-kairos-signature-v2'], 'v2')?.signatures.length,
        signaturesOf(request.headers['x-kairos-signature'], 'v1')?.signatures.length,
      ],
    };
  }

  beforeAll(async () => {
    k = await startTestKairos('webhook_rotation');
    // A first rotation without a grace: the tenant's starting secret (never shown) signs nothing after it.
    await rotate(0);
    const r = await receiver;
    const input = {
      name: 'rotation',
      schedule: { intervalSeconds: 3600 },
      target: { http: { url: `${r.url}/hook`, method: 'POST' } },
      payload: { n: 1 },
      paused: true,
    };
    const { job } = (await gqlOk(k.url, admin, CREATE_JOB, { input })).createJob;
    jobId = job.id;
    jobUrl = job.target.url;
  });
  afterAll(async () => {
    await (await receiver).close();
    await k?.stop();
  });

  it('signs with the one secret after a rotation without a grace', async () => {
    expect(verifiedWith(await delivery())).toEqual({ v2: [true], v1: [true], signatures: [1, 1] });
    expect((await gqlOk(k.url, admin, VIEWER)).viewer.webhookSecretRotation.previousSecretExpiresAt).toBeNull();
  });

  it('after rotateWebhookSecret (a day of grace by default) a delivery verifies with the old secret and with the new one, newest first', async () => {
    const before = Date.now();
    const { secret } = (await gqlOk(k.url, admin, `mutation { rotateWebhookSecret { secret previousSecretExpiresAt } }`))
      .rotateWebhookSecret;
    secrets.push(secret);
    const { webhookSecretRotation } = (await gqlOk(k.url, admin, VIEWER)).viewer;
    const expiresAt = Date.parse(webhookSecretRotation.previousSecretExpiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 86_400_000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 86_400_000);

    const request = await delivery();
    expect(verifiedWith(request)).toEqual({ v2: [true, true], v1: [true, true], signatures: [2, 2] });
    // The new secret's signature comes first.
    const { t, signatures } = signaturesOf(request.headers['x-kairos-signature-v2'], 'v2')!;
    const signed = `v2\n${t}\n${String(request.headers['x-kairos-execution-id'])}\nPOST\n${jobUrl}\n${request.body}`;
    expect(signatures[0]).toEqual(createHmac('sha256', secret).update(signed).digest());
    expect(signatureV2Valid(request, 'another-secret', jobUrl)).toBe(false);
  });

  it('after revokePreviousWebhookSecret only the new secret verifies; revoking again changes nothing', async () => {
    const revoked = (await gqlOk(k.url, admin, REVOKE)).revokePreviousWebhookSecret;
    expect(revoked).toEqual({ previousSecretExpiresAt: null, rotatedAt: expect.any(String) });
    expect((await gqlOk(k.url, admin, REVOKE)).revokePreviousWebhookSecret).toEqual(revoked);
    expect((await gqlOk(k.url, admin, VIEWER)).viewer.webhookSecretRotation).toEqual(revoked);
    expect(verifiedWith(await delivery())).toEqual({ v2: [false, true], v1: [false, true], signatures: [1, 1] });
  });

  it('once a short grace is over, a later delivery verifies with the new secret alone', async () => {
    const { previousSecretExpiresAt } = await rotate(1);
    expect(previousSecretExpiresAt).not.toBeNull();
    await waitUntil(
      'the one-second grace to end',
      async () => ((await gqlOk(k.url, admin, VIEWER)).viewer.webhookSecretRotation.previousSecretExpiresAt === null ? true : undefined),
      5_000,
    );
    expect(verifiedWith(await delivery())).toEqual({ v2: [false, false, true], v1: [false, false, true], signatures: [1, 1] });
  });

  it.each([-1, 604_801])('refuses gracePeriodSeconds %p with BAD_USER_INPUT naming it, and keeps the secret', async (grace) => {
    const answer = await gql(k.url, admin, ROTATE, { grace });
    expect(answer.errors?.[0]).toMatchObject({
      message: expect.stringContaining('gracePeriodSeconds'),
      extensions: { code: 'BAD_USER_INPUT', field: 'gracePeriodSeconds' },
    });
    expect(verifiedWith(await delivery()).v2.at(-1)).toBe(true);
  });

  it('takes a null grace as the default, a day', async () => {
    const before = Date.now();
    const { previousSecretExpiresAt } = await rotate(null);
    expect(Date.parse(previousSecretExpiresAt!)).toBeGreaterThanOrEqual(before + 86_400_000 - 1000);
    expect(Date.parse(previousSecretExpiresAt!)).toBeLessThanOrEqual(Date.now() + 86_400_000);
  });
});
