import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ObjectId } from 'mongodb';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gqlOk } from '../support/graphqlClient.js';
import { startReceiver, type ReceivedRequest } from '../support/httpReceiver.js';
import { signatureV2Valid, signatureValid } from '../support/webhookSignature.js';
import { toGlobalId } from '../../src/ids/globalId.js';

// Without a grace: each delivery then carries the one signature these replays are about.
const ROTATE = `mutation { rotateWebhookSecret(gracePeriodSeconds: 0) { secret } }`;
const CREATE_JOB = `mutation($input: CreateJobInput!) {
  createJob(input: $input) { job { id target { ... on HttpTarget { url method } } } }
}`;
const TRIGGER = `mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }`;

/** The headers a replay copies from a captured delivery: what Kairos set, minus what the transport sets again. */
function capturedHeaders(request: ReceivedRequest): Record<string, string> {
  const copied: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string' && (name.startsWith('x-kairos-') || name === 'idempotency-key' || name === 'content-type')) {
      copied[name] = value;
    }
  }
  return copied;
}

/**
 * A captured delivery replayed by someone who has it but not the secret: v1, which signs only the
 * timestamp and the body, still verifies (old receivers keep working, and stay replayable), while v2
 * binds the execution id, the method and the URL, so each replay below fails it.
 */
describe('webhook signatures: a replayed delivery', () => {
  let k: TestKairos;
  let secret = '';
  const admin = tokenFor(uniqueName('webhook_replay'), 'admin');
  const receiver = startReceiver(() => ({ status: 204 }));

  beforeAll(async () => {
    k = await startTestKairos('webhook_replay');
    secret = (await gqlOk(k.url, admin, ROTATE)).rotateWebhookSecret.secret as string;
  });
  afterAll(async () => {
    await (await receiver).close();
    await k?.stop();
  });

  /** Creates a paused job calling `url` with `method`, triggers it and returns the delivery the receiver got and the job's URL as Kairos shows it. */
  async function deliveryOf(path: string, method: 'POST' | 'GET'): Promise<{ delivery: ReceivedRequest; jobUrl: string }> {
    const r = await receiver;
    const input = {
      name: `replay-${method}`,
      schedule: { intervalSeconds: 3600 },
      target: { http: { url: `${r.url}${path}`, method } },
      payload: { amount: 12.5 },
      paused: true,
    };
    const { job } = (await gqlOk(k.url, admin, CREATE_JOB, { input })).createJob;
    const before = r.received.length;
    const executionId = (await gqlOk(k.url, admin, TRIGGER, { id: job.id })).triggerJob.execution.id as string;
    const delivery = (await r.waitForRequests(before + 1, 15_000))[before];
    expect(delivery.headers['x-kairos-execution-id']).toBe(executionId);
    return { delivery, jobUrl: job.target.url as string };
  }

  /** Sends `headers` and `body` to the receiver and returns the request as it arrived. */
  async function replay(path: string, method: string, headers: Record<string, string>, body: string): Promise<ReceivedRequest> {
    const r = await receiver;
    const before = r.received.length;
    const response = await fetch(`${r.url}${path}`, { method, headers, body: method === 'GET' ? undefined : body });
    expect(response.status).toBe(204);
    return (await r.waitForRequests(before + 1, 5_000))[before];
  }

  it('verifies a real delivery with v2, against the URL the job shows, and with v1', async () => {
    const { delivery, jobUrl } = await deliveryOf('/hook?source=kairos', 'POST');
    expect(jobUrl).toBe(`${(await receiver).url}/hook?source=kairos`);
    expect(delivery.headers['x-kairos-signature-v2']).toMatch(/^t=\d+,v2=[0-9a-f]{64}$/);
    expect(signatureV2Valid(delivery, secret, jobUrl)).toBe(true);
    expect(signatureValid(delivery, secret)).toBe(true);
    expect(signatureV2Valid(delivery, 'another-secret', jobUrl)).toBe(false);
  });

  it('fails v2 when replayed under another execution id, to another URL or with another method; v1 still verifies', async () => {
    const { delivery, jobUrl } = await deliveryOf('/hook', 'POST');
    const headers = capturedHeaders(delivery);

    // Another execution id (and idempotency key): a receiver that deduplicates on it would run the work again.
    const otherId = toGlobalId('Execution', new ObjectId());
    const asAnotherRun = await replay(
      '/hook',
      'POST',
      { ...headers, 'x-kairos-execution-id': otherId, 'idempotency-key': otherId },
      delivery.body,
    );
    expect(signatureV2Valid(asAnotherRun, secret, jobUrl)).toBe(false);
    expect(signatureValid(asAnotherRun, secret)).toBe(true);

    // Another URL of the same tenant: that receiver verifies against its own job's URL.
    const otherUrl = `${(await receiver).url}/other-hook`;
    const elsewhere = await replay('/other-hook', 'POST', headers, delivery.body);
    expect(signatureV2Valid(elsewhere, secret, otherUrl)).toBe(false);
    expect(signatureValid(elsewhere, secret)).toBe(true);

    // Another method on the same URL.
    const asPut = await replay('/hook', 'PUT', headers, delivery.body);
    expect(signatureV2Valid(asPut, secret, jobUrl)).toBe(false);
    expect(signatureValid(asPut, secret)).toBe(true);

    // The replay unchanged still verifies within the tolerance: the timestamp bounds it, the receiver's deduplication ends it.
    expect(signatureV2Valid(await replay('/hook', 'POST', headers, delivery.body), secret, jobUrl)).toBe(true);
  });

  it("fails v2 for a GET delivery's headers sent as a forged GET to another URL (v1 signs only the empty body)", async () => {
    const { delivery, jobUrl } = await deliveryOf('/ping', 'GET');
    expect(delivery.body).toBe('');
    expect(signatureV2Valid(delivery, secret, jobUrl)).toBe(true);
    const forged = await replay('/admin/purge', 'GET', capturedHeaders(delivery), '');
    expect(signatureV2Valid(forged, secret, `${(await receiver).url}/admin/purge`)).toBe(false);
    expect(signatureValid(forged, secret)).toBe(true);
  });
});
