// Covers: src/api/socketAuth.ts, src/apiKeys/createApiKey.ts, src/apiKeys/revokeApiKey.ts, src/auth/authenticate.ts,
// src/auth/publicKeyAlgorithm.ts, src/domain/webhookSecret.ts, src/resolvers/apiKey.resolver.ts, src/store/apiKeyStore.ts,
// src/store/ownTenantStore.ts, src/tenants/rotateWebhookSecret.ts
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { MongoClient } from 'mongodb';
import type { Client } from 'graphql-ws';
import { startTestKairos, tokenFor, uniqueName, type TestKairos } from '../support/harness.js';
import { gql, gqlOk } from '../support/graphqlClient.js';
import { EventCollector, triggerUntilSeen, wsClient } from '../support/subscriptions.js';
import { startReceiver } from '../support/httpReceiver.js';
import { signatureValid } from '../support/webhookSignature.js';
import { MONGO_URL } from '../support/env.js';
import { toGlobalId } from '../../src/ids/globalId.js';
import { ApiKeyLookup } from '../../src/store/apiKeyLookup.js';
import { authenticateApiKey } from '../../src/apiKeys/authenticateApiKey.js';
import { hashApiKeySecret } from '../../src/apiKeys/apiKeySecret.js';

const CREATE_KEY = `mutation($name: String!, $role: Role!) { createApiKey(name: $name, role: $role) { secret apiKey { id name role prefix createdAt lastUsedAt } } }`;
const REVOKE_KEY = `mutation($id: ID!) { revokeApiKey(id: $id) { id name role prefix } }`;
const KEYS = `{ apiKeys { id name role prefix createdAt lastUsedAt } }`;
const VIEWER = `{ viewer { tenantId subject role } }`;
const ROTATE = `mutation { rotateWebhookSecret { secret } }`;
const CREATE_JOB = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
const TRIGGER = `mutation($id: ID!) { triggerJob(id: $id) { execution { id } } }`;
const SUBSCRIBE = `subscription { executionUpdated { status execution { id } } }`;

type Key = { id: string; name: string; role: string; prefix: string; createdAt: string; lastUsedAt: string | null };
type Event = { executionUpdated: { status: string; execution: { id: string } } };

/** Waits for the socket of a graphql-ws client to be closed by the server; resolves with the close code and when it came. */
function closeOf(client: Client, query: string): Promise<{ code: number; reason: string; at: number }> {
  return new Promise((resolve) => {
    client.on('closed', (event) => {
      const { code, reason } = event as { code: number; reason: string };
      resolve({ code, reason, at: Date.now() });
    });
    client.subscribe({ query }, { next: () => undefined, error: () => undefined, complete: () => undefined });
  });
}

describe('identity: API keys, webhook secret rotation and token expiry on subscriptions', () => {
  let k: TestKairos;
  let mongo: MongoClient;
  const tenant = uniqueName('identity');
  const admin = tokenFor(tenant, 'admin');
  const otherAdmin = tokenFor(uniqueName('identity_other'), 'admin');
  const receiver = startReceiver(() => ({ status: 200, body: 'ok' }));

  beforeAll(async () => {
    k = await startTestKairos('identity');
    mongo = await new MongoClient(MONGO_URL).connect();
  });
  afterAll(async () => {
    await mongo?.close();
    await (await receiver).close();
    await k?.stop();
  });

  async function createKey(name: string, role: string, token = admin): Promise<{ secret: string; apiKey: Key }> {
    return (await gqlOk(k.url, token, CREATE_KEY, { name, role })).createApiKey;
  }

  describe('API keys', () => {
    it('returns the secret once, as kairos_ + 43 base62 characters, and stores only its SHA-256', async () => {
      const before = Date.now();
      const { secret, apiKey } = await createKey('  ci deploys  ', 'MEMBER');
      expect(secret).toMatch(/^kairos_[0-9A-Za-z]{43}$/);
      expect(apiKey).toEqual({
        id: expect.any(String),
        name: 'ci deploys',
        role: 'MEMBER',
        prefix: secret.slice(0, 13),
        createdAt: expect.any(String),
        lastUsedAt: null,
      });
      expect(Date.parse(apiKey.createdAt)).toBeGreaterThanOrEqual(before - 1000);

      const stored = await mongo.db(k.dbName).collection('apiKeys').find({}).toArray();
      const mine = stored.filter((d) => d.tenantId === tenant);
      expect(mine).toHaveLength(1);
      expect(mine[0].secretHash).toBe(createHash('sha256').update(secret).digest('hex'));
      expect(JSON.stringify(stored)).not.toContain(secret.slice(13));

      const listed = (await gqlOk(k.url, admin, KEYS)).apiKeys as Key[];
      expect(listed).toContainEqual(apiKey);
      expect(JSON.stringify(listed)).not.toContain(secret.slice(13));
    });

    it('acts as its tenant with its role, over HTTP', async () => {
      const { secret, apiKey } = await createKey('reader', 'VIEWER');
      expect((await gqlOk(k.url, secret, VIEWER)).viewer).toEqual({ tenantId: tenant, subject: `apiKey:${apiKey.id}`, role: 'VIEWER' });
      const denied = await gql(k.url, secret, CREATE_JOB, {
        input: { name: 'x', schedule: { intervalSeconds: 60 }, target: { handler: 'noop' } },
      });
      expect(denied.errors?.[0].extensions?.code).toBe('FORBIDDEN');
    });

    it('records lastUsedAt on use, rewriting it at most once a minute', async () => {
      const { secret, apiKey } = await createKey('usage', 'ADMIN');
      const before = Date.now();
      await gqlOk(k.url, secret, VIEWER);
      const first = ((await gqlOk(k.url, secret, KEYS)).apiKeys as Key[]).find((key) => key.id === apiKey.id)!;
      expect(first.lastUsedAt).not.toBeNull();
      expect(Date.parse(first.lastUsedAt!)).toBeGreaterThanOrEqual(before - 1000);
      await gqlOk(k.url, secret, VIEWER);
      const second = ((await gqlOk(k.url, secret, KEYS)).apiKeys as Key[]).find((key) => key.id === apiKey.id)!;
      expect(second.lastUsedAt).toBe(first.lastUsedAt);
    });

    it('writes lastUsedAt again once a minute has passed (time is an input)', async () => {
      const { secret } = await createKey('clocked', 'VIEWER');
      const lookup = new ApiKeyLookup(mongo.db(k.dbName));
      const t0 = new Date('2030-01-01T00:00:00.000Z');
      const usedAt = async () =>
        (
          await mongo
            .db(k.dbName)
            .collection('apiKeys')
            .findOne({ secretHash: hashApiKeySecret(secret) })
        )?.lastUsedAt;
      await authenticateApiKey(lookup, secret, t0);
      expect(await usedAt()).toEqual(t0);
      await authenticateApiKey(lookup, secret, new Date(t0.getTime() + 59_000));
      expect(await usedAt()).toEqual(t0);
      const later = new Date(t0.getTime() + 61_000);
      const credential = await authenticateApiKey(lookup, secret, later);
      expect(await usedAt()).toEqual(later);
      expect(credential).toEqual({
        identity: { tenantId: tenant, subject: expect.stringMatching(/^apiKey:/), role: 'VIEWER', apiKeyId: expect.any(String) },
        validUntil: null,
      });
    });

    it('stops working at the next request once revoked; revoking again is NOT_FOUND', async () => {
      const { secret, apiKey } = await createKey('short-lived', 'MEMBER');
      expect((await gqlOk(k.url, secret, VIEWER)).viewer.tenantId).toBe(tenant);
      const revoked = (await gqlOk(k.url, admin, REVOKE_KEY, { id: apiKey.id })).revokeApiKey;
      expect(revoked).toEqual({ id: apiKey.id, name: 'short-lived', role: 'MEMBER', prefix: apiKey.prefix });
      const after = await gql(k.url, secret, VIEWER);
      expect(after.data).toBeNull();
      expect(after.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
      expect(JSON.stringify(after)).not.toContain(secret);
      expect(((await gqlOk(k.url, admin, KEYS)).apiKeys as Key[]).map((key) => key.id)).not.toContain(apiKey.id);
      expect((await gql(k.url, admin, REVOKE_KEY, { id: apiKey.id })).errors?.[0].extensions?.code).toBe('NOT_FOUND');
    });

    it("treats another tenant's key ids exactly like missing ones, and never lists them", async () => {
      const { secret, apiKey } = await createKey('guarded', 'MEMBER');
      const missing = toGlobalId('ApiKey', '0123456789abcdef01234567');
      const foreign = await gql(k.url, otherAdmin, REVOKE_KEY, { id: apiKey.id });
      const absent = await gql(k.url, otherAdmin, REVOKE_KEY, { id: missing });
      expect(foreign.errors?.[0].extensions?.code).toBe('NOT_FOUND');
      expect(absent.errors?.[0].extensions?.code).toBe('NOT_FOUND');
      // Same message shape: only the id differs.
      expect(foreign.errors?.[0].message.replace(apiKey.id, 'ID')).toBe(absent.errors?.[0].message.replace(missing, 'ID'));
      expect((await gqlOk(k.url, otherAdmin, KEYS)).apiKeys).toEqual([]);
      // The key still works for its own tenant.
      expect((await gqlOk(k.url, secret, VIEWER)).viewer.tenantId).toBe(tenant);
    });

    it.each([
      ['a malformed id', 'not-an-id'],
      ['a job id', toGlobalId('Job', '0123456789abcdef01234567')],
      ['an empty id', ''],
    ])('answers NOT_FOUND to revoking %s', async (_label, id) => {
      expect((await gql(k.url, admin, REVOKE_KEY, { id })).errors?.[0].extensions?.code).toBe('NOT_FOUND');
    });

    it.each([
      ['an empty name', '   '],
      ['a name over 200 characters', 'k'.repeat(201)],
    ])('refuses %s with BAD_USER_INPUT and creates nothing', async (_label, name) => {
      const before = ((await gqlOk(k.url, admin, KEYS)).apiKeys as Key[]).length;
      const result = await gql(k.url, admin, CREATE_KEY, { name, role: 'VIEWER' });
      expect(result.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
      expect(((await gqlOk(k.url, admin, KEYS)).apiKeys as Key[]).length).toBe(before);
    });

    it.each([
      ['a well-formed key that was never issued', `kairos_${'A'.repeat(43)}`],
      ['a truncated key', 'kairos_abc'],
      ['a key with a stray character', `kairos_${'a'.repeat(42)}$`],
    ])('rejects %s with UNAUTHENTICATED', async (_label, token) => {
      const result = await gql(k.url, token, VIEWER);
      expect(result.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
      expect(JSON.stringify(result)).not.toContain(token);
    });

    it('authenticates a graphql-ws connection; once the key is revoked, its next subscription and a new connection get 4401', async () => {
      const { secret, apiKey } = await createKey('socket', 'VIEWER');
      const client = wsClient(k.url, secret);
      try {
        await receivesEvents(new EventCollector<Event>(client, SUBSCRIBE));
        await gqlOk(k.url, admin, REVOKE_KEY, { id: apiKey.id });
        expect((await closeOf(client, SUBSCRIBE)).code).toBe(4401);
      } finally {
        await client.dispose();
      }
      const revokedClient = wsClient(k.url, secret);
      const closed = await closeOf(revokedClient, SUBSCRIBE);
      await revokedClient.dispose();
      expect(closed.code).toBe(4401);
    });
  });

  /** Proves a subscription live: triggers a paused job of the tenant until its execution's event arrives. */
  async function receivesEvents(events: EventCollector<Event>, timeoutMs = 10_000): Promise<void> {
    const job = (
      await gqlOk(k.url, admin, CREATE_JOB, {
        input: { name: 'probe', schedule: { intervalSeconds: 3600 }, target: { handler: 'noop' }, paused: true },
      })
    ).createJob.job;
    const trigger = async () => (await gqlOk(k.url, admin, TRIGGER, { id: job.id })).triggerJob.execution.id as string;
    await triggerUntilSeen(events, (e) => e.executionUpdated.execution.id, trigger, timeoutMs);
  }

  describe('rotateWebhookSecret', () => {
    it('returns a new secret once, and without a grace the next delivery is signed with it alone (not with the old one)', async () => {
      const r = await receiver;
      const first = (await gqlOk(k.url, admin, ROTATE)).rotateWebhookSecret.secret as string;
      expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const job = (
        await gqlOk(k.url, admin, CREATE_JOB, {
          input: { name: 'signed', schedule: { intervalSeconds: 3600 }, target: { http: { url: `${r.url}/hook` } }, paused: true },
        })
      ).createJob.job;

      await gqlOk(k.url, admin, TRIGGER, { id: job.id });
      const [signedWithFirst] = await r.waitForRequests(1, 15_000);
      expect(signatureValid(signedWithFirst, first)).toBe(true);

      const second = (await gqlOk(k.url, admin, 'mutation { rotateWebhookSecret(gracePeriodSeconds: 0) { secret } }')).rotateWebhookSecret
        .secret as string;
      expect(second).not.toBe(first);
      await gqlOk(k.url, admin, TRIGGER, { id: job.id });
      const signedWithSecond = (await r.waitForRequests(2, 15_000))[1];
      expect(signatureValid(signedWithSecond, second)).toBe(true);
      expect(signatureValid(signedWithSecond, first)).toBe(false);

      const stored = await mongo.db(k.dbName).collection<{ _id: string; webhookSecret: string }>('tenants').findOne({ _id: tenant });
      expect(stored?.webhookSecret).toBe(second);
    });

    it("replaces only the caller's tenant's secret", async () => {
      const tenants = mongo.db(k.dbName).collection<{ _id: string; webhookSecret: string }>('tenants');
      const mine = (await gqlOk(k.url, admin, ROTATE)).rotateWebhookSecret.secret;
      const theirs = (await gqlOk(k.url, otherAdmin, ROTATE)).rotateWebhookSecret.secret;
      expect((await tenants.findOne({ _id: tenant }))?.webhookSecret).toBe(mine);
      expect(theirs).not.toBe(mine);
    });
  });

  describe('subscriptions and token expiry', () => {
    it('closes a connection with 4401 once its token expires, not before', async () => {
      const expiresAt = Math.floor(Date.now() / 1000) + 2;
      const client = wsClient(k.url, tokenFor(tenant, 'viewer', expiresAt - Math.floor(Date.now() / 1000)));
      try {
        const closed = closeOf(client, SUBSCRIBE);
        // Live while the token is valid.
        await receivesEvents(new EventCollector<Event>(client, SUBSCRIBE), 1500);
        const { code, at } = await closed;
        expect(code).toBe(4401);
        expect(at).toBeGreaterThanOrEqual(expiresAt * 1000);
        expect(at).toBeLessThan((expiresAt + 10) * 1000);
      } finally {
        await client.dispose();
      }
    }, 20_000);
  });
});

describe('identity: JWTs signed with a private key (JWT_PUBLIC_KEY, issuer and audience set)', () => {
  let k: TestKairos;
  const tenant = uniqueName('es256');
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const claims = { tid: tenant, role: 'member', sub: 'user-1', iss: 'https://idp.test', aud: 'kairos' };
  const sign = (extra: Record<string, unknown> = {}, options: jwt.SignOptions = {}) =>
    jwt.sign({ ...claims, ...extra }, privateKey.export({ type: 'pkcs8', format: 'pem' }), {
      algorithm: 'ES256',
      expiresIn: 60,
      ...options,
    });

  beforeAll(async () => {
    k = await startTestKairos('es256', {
      roles: ['api'],
      env: {
        JWT_SECRET: '',
        JWT_PUBLIC_KEY: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
        JWT_ISSUER: 'https://idp.test',
        JWT_AUDIENCE: 'kairos',
      },
    });
  });
  afterAll(async () => {
    await k?.stop();
  });

  it('accepts an ES256 token of the configured issuer and audience', async () => {
    expect((await gqlOk(k.url, sign(), VIEWER)).viewer).toEqual({ tenantId: tenant, subject: 'user-1', role: 'MEMBER' });
  });

  it.each([
    ['another issuer', () => sign({ iss: 'https://evil.test' })],
    ['another audience', () => sign({ aud: 'billing' })],
    ['no audience', () => sign({ aud: undefined })],
    ['a future nbf', () => sign({}, { notBefore: 60 })],
    ['an HS256 token, even one keyed with the test secret', () => tokenFor(tenant, 'admin')],
  ])('rejects a token with %s as UNAUTHENTICATED', async (_label, token) => {
    const result = await gql(k.url, token(), VIEWER);
    expect(result.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
  });
});
