// Covers: src/auth/publicKeyAlgorithm.ts, src/domain/role.ts
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createHmac, generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { bearerToken, CLOCK_TOLERANCE_SECONDS, signDevToken, verifyJwt, type JwtOptions } from '../../src/auth/verifyToken.js';
import { CONFIG_DEFAULTS } from '../../src/config.js';
import { UnauthenticatedError } from '../../src/errors/index.js';
import type { Identity } from '../../src/domain/identity.js';

const SECRET = 'test-secret-0123456789abcdef';
/** Fixed "now" for every token and every verification: 2025-03-01T12:00:00Z = 1740830400 s. */
const NOW = new Date('2025-03-01T12:00:00.000Z');
const NOW_S = 1740830400;

const MAX_TTL = CONFIG_DEFAULTS.jwtMaxTtlSeconds;
const HS: JwtOptions = { secret: SECRET, maxTtlSeconds: MAX_TTL };

function hs256(claims: Record<string, unknown>, secret = SECRET): string {
  return jwt.sign(claims, secret, { algorithm: 'HS256' });
}

/** An HS256 token built by hand, for claims jwt.sign refuses to sign. */
function handSigned(claims: Record<string, unknown>, key: string = SECRET, alg = 'HS256'): string {
  const header = Buffer.from(JSON.stringify({ alg, typ: 'JWT' })).toString('base64url');
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${header}.${payload}.${createHmac('sha256', key).update(`${header}.${payload}`).digest('base64url')}`;
}

/** Claims of a valid token: one hour left. */
const valid = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  tid: 'acme',
  sub: 'user-42',
  role: 'member',
  iat: NOW_S,
  exp: NOW_S + 3600,
  ...extra,
});

/** The identity of a token verified at NOW. */
function identityOf(token: string, options: JwtOptions = HS): Identity {
  return verifyJwt(token, options, NOW).identity;
}

function unauthenticated(token: string, options: JwtOptions = HS): UnauthenticatedError {
  let caught: unknown;
  try {
    verifyJwt(token, options, NOW);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(UnauthenticatedError);
  const error = caught as UnauthenticatedError;
  expect(error.code).toBe('UNAUTHENTICATED');
  if (token.length > 0) {
    expect(error.message).not.toContain(token);
    // not even the signature or the payload segment
    for (const part of token.split('.').filter((p) => p.length > 8)) expect(error.message).not.toContain(part);
  }
  return error;
}

beforeAll(() => {
  jest.useFakeTimers({ now: NOW });
});

afterAll(() => {
  jest.useRealTimers();
});

describe('verifyJwt with an HS256 secret', () => {
  it('uses the fixed clock', () => {
    expect(Math.floor(Date.now() / 1000)).toBe(NOW_S);
  });

  it('returns the identity of a valid token', () => {
    expect(identityOf(hs256(valid()), HS)).toEqual({ tenantId: 'acme', subject: 'user-42', role: 'MEMBER' });
  });

  it.each([
    ['admin', 'ADMIN'],
    ['Admin', 'ADMIN'],
    ['MEMBER', 'MEMBER'],
    ['viewer', 'VIEWER'],
    ['vIeWeR', 'VIEWER'],
  ])('upper-cases role %s to %s', (role, expected) => {
    expect(identityOf(hs256(valid({ role })), HS).role).toBe(expected);
  });

  it('accepts tenant ids of letters, digits, _ . - up to 128 characters', () => {
    expect(identityOf(hs256(valid({ tid: 'Acme_corp.eu-1' })), HS).tenantId).toBe('Acme_corp.eu-1');
    const long = 't'.repeat(128);
    expect(identityOf(hs256(valid({ tid: long })), HS).tenantId).toBe(long);
  });

  it('gives an empty subject when sub is absent', () => {
    const claims = valid();
    delete claims.sub;
    expect(identityOf(hs256(claims), HS)).toEqual({ tenantId: 'acme', subject: '', role: 'MEMBER' });
  });

  it('accepts a token that expired less than 5 seconds ago (clock tolerance)', () => {
    expect(identityOf(hs256(valid({ exp: NOW_S - 4 })), HS).tenantId).toBe('acme');
  });

  it('refuses a token valid for longer than JWT_MAX_TTL_SECONDS (30 days by default), even one whose exp Date cannot hold', () => {
    expect(identityOf(hs256(valid({ exp: NOW_S + MAX_TTL })), HS).tenantId).toBe('acme');
    expect(unauthenticated(hs256(valid({ exp: NOW_S + MAX_TTL + 3600 }))).message).toEqual(
      expect.stringMatching(/^The token is valid for longer than the accepted maximum of 2592000 seconds; /),
    );
    expect(unauthenticated(hs256(valid({ exp: 1e15 }))).message).toMatch(/longer than the accepted maximum/);
    // A deployment may lower (or raise) the maximum.
    expect(unauthenticated(hs256(valid({ exp: NOW_S + 7200 })), { ...HS, maxTtlSeconds: 3600 }).message).toMatch(/maximum of 3600 seconds/);
    expect(identityOf(hs256(valid({ exp: NOW_S + 7200 })), { ...HS, maxTtlSeconds: 86_400 }).tenantId).toBe('acme');
  });

  it('rejects a token that expired more than 5 seconds ago, saying it expired', () => {
    const error = unauthenticated(hs256(valid({ exp: NOW_S - 6 })));
    expect(error.message).toBe(
      'The token has expired (exp); mint a new one with npm run -s token (in development) or get one from your token issuer',
    );
    expect(unauthenticated(hs256(valid({ iat: NOW_S - 7200, exp: NOW_S - 3600 }))).message).toMatch(/^The token has expired \(exp\)/);
  });

  it('rejects a token without exp', () => {
    const claims = valid();
    delete claims.exp;
    expect(unauthenticated(hs256(claims)).message).toMatch(/^The token has no expiry \(exp\); mint a new one with npm run -s token/);
  });

  it('rejects a token not valid before a later time (nbf beyond the tolerance)', () => {
    unauthenticated(hs256(valid({ nbf: NOW_S + 60 })));
    unauthenticated(hs256(valid({ nbf: NOW_S + 6 })));
  });

  it('accepts a token whose nbf is less than 5 seconds ahead (clock tolerance) or past', () => {
    expect(identityOf(hs256(valid({ nbf: NOW_S + 4 }))).tenantId).toBe('acme');
    expect(identityOf(hs256(valid({ nbf: NOW_S - 60 }))).tenantId).toBe('acme');
  });

  it('takes the time to verify at as an input, not from the system clock', () => {
    const token = hs256(valid({ nbf: NOW_S + 600, exp: NOW_S + 3600 }));
    expect(verifyJwt(token, HS, new Date((NOW_S + 601) * 1000)).identity.tenantId).toBe('acme');
    expect(() => verifyJwt(token, HS, new Date((NOW_S + 3606) * 1000))).toThrow('The token has expired (exp)');
  });

  it('says the token is valid until exp plus the clock tolerance', () => {
    expect(verifyJwt(hs256(valid({ exp: NOW_S + 2 })), HS, NOW).validUntil).toEqual(new Date((NOW_S + 2 + CLOCK_TOLERANCE_SECONDS) * 1000));
  });

  it.each([
    ['a string', 'soon'],
    ['an object', { $gt: 0 }],
    ['null', null],
  ])('rejects an exp that is %s', (_label, exp) => {
    expect(identityOf(handSigned(valid())).tenantId).toBe('acme');
    unauthenticated(handSigned({ ...valid(), exp }));
  });

  it('rejects a token signed with another secret', () => {
    const { message } = unauthenticated(hs256(valid(), 'another-secret-0123456789'));
    expect(message).toMatch(
      /^The token signature does not verify: it was signed with another key .*; mint a new one with npm run -s token/,
    );
    expect(message).not.toContain(SECRET);
    expect(message).not.toContain('another-secret');
  });

  it('rejects a token whose payload was altered after signing', () => {
    const [header, , signature] = hs256(valid()).split('.');
    const forged = Buffer.from(JSON.stringify(valid({ role: 'admin' }))).toString('base64url');
    expect(unauthenticated(`${header}.${forged}.${signature}`).message).toMatch(/^The token signature does not verify/);
  });

  it('rejects an unsigned token (alg none)', () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify(valid())).toString('base64url');
    expect(unauthenticated(`${header}.${payload}.`).message).toMatch(
      /^The token is not signed with HS256, the one algorithm this server accepts; mint a new one with npm run -s token/,
    );
    unauthenticated(`${header}.${payload}`);
  });

  it('rejects an RS256 token when an HS256 secret is configured', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expect(unauthenticated(jwt.sign(valid(), privateKey.export({ type: 'pkcs8', format: 'pem' }), { algorithm: 'RS256' })).message).toMatch(
      /^The token is not signed with HS256/,
    );
  });

  it('rejects a token without tid', () => {
    const claims = valid();
    delete claims.tid;
    expect(unauthenticated(hs256(claims)).message).toMatch(/^The token has no valid tenant \(tid\); mint a new one with npm run -s token/);
  });

  it.each([
    ['a space', 'acme corp'],
    ['a slash', 'acme/other'],
    ['a colon', 'acme:jobs'],
    ['a Redis glob', 'acme*'],
    ['a newline', 'acme\nINFO forged'],
    ['a non-ASCII letter', 'acmé'],
    ['the empty string', ''],
    ['129 characters', 't'.repeat(129)],
    ['a number', 42],
    ['an object', { $ne: null }],
  ])('rejects a tid with %s', (_label, tid) => {
    expect(unauthenticated(hs256(valid({ tid }))).message).toMatch(
      /^The token has no valid tenant \(tid\); mint a new one with npm run -s token/,
    );
  });

  it.each([['owner'], ['superadmin'], [''], [1], [['admin']], ['constructor'], ['__proto__'], ['toString']])(
    'rejects the role %j',
    (role) => {
      expect(unauthenticated(hs256(valid({ role }))).message).toMatch(
        /^The token has no valid role \(admin, member or viewer\); mint a new one with npm run -s token/,
      );
    },
  );

  it('rejects a token without role', () => {
    const claims = valid();
    delete claims.role;
    unauthenticated(hs256(claims));
  });

  it.each([
    ['empty', ''],
    ['not a JWT', 'not-a-jwt'],
    ['two garbage segments', 'abc.def'],
    ['three garbage segments', 'abc.def.ghi'],
  ])('rejects a malformed token (%s)', (_label, token) => {
    expect(unauthenticated(token).message).toMatch(/^The token is not a well-formed JWT .*; mint a new one with npm run -s token/);
  });

  it('rejects a token with a JSON string payload (its made-up signature fails first)', () => {
    const token = `${Buffer.from('{"alg":"HS256"}').toString('base64url')}.${Buffer.from('"x"').toString('base64url')}.sig`;
    expect(unauthenticated(token).message).toMatch(/^The token signature does not verify/);
  });

  it('checks issuer and audience when configured', () => {
    const options: JwtOptions = { secret: SECRET, issuer: 'https://idp.example', audience: 'kairos', maxTtlSeconds: MAX_TTL };
    const good = hs256(valid({ iss: 'https://idp.example', aud: 'kairos' }));
    expect(identityOf(good, options).tenantId).toBe('acme');
    const wrongIssuer = unauthenticated(hs256(valid({ iss: 'https://evil.example', aud: 'kairos' })), options).message;
    expect(wrongIssuer).toMatch(/^The token issuer \(iss\) is not the one this server accepts/);
    expect(wrongIssuer).not.toContain('idp.example');
    const wrongAudience = unauthenticated(hs256(valid({ iss: 'https://idp.example', aud: 'other' })), options).message;
    expect(wrongAudience).toMatch(/^The token audience \(aud\) is not the one this server accepts/);
    expect(wrongAudience).not.toContain('kairos');
    unauthenticated(hs256(valid({ aud: 'kairos' })), options);
  });

  it('refuses every token when no key is configured', () => {
    expect(unauthenticated(hs256(valid()), { maxTtlSeconds: MAX_TTL }).message).toBe('Token verification is not configured');
  });

  it('refuses every token when both a secret and a public key are configured (ambiguous algorithm)', () => {
    const publicKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(unauthenticated(hs256(valid()), { secret: SECRET, publicKey, maxTtlSeconds: MAX_TTL }).message).toBe(
      'Token verification is not configured',
    );
  });

  it('refuses an HS384 or HS512 token signed with the right secret (only HS256 is accepted)', () => {
    unauthenticated(jwt.sign(valid(), SECRET, { algorithm: 'HS384' }));
    unauthenticated(jwt.sign(valid(), SECRET, { algorithm: 'HS512' }));
  });
});

describe('verifyJwt with a public key', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const options: JwtOptions = { publicKey: publicPem, maxTtlSeconds: MAX_TTL };

  it('accepts an RS256 token signed with the matching private key', () => {
    const token = jwt.sign(valid({ role: 'viewer' }), privatePem, { algorithm: 'RS256' });
    expect(identityOf(token, options)).toEqual({ tenantId: 'acme', subject: 'user-42', role: 'VIEWER' });
  });

  it('rejects an HS256 token using the public key text as its secret (algorithm confusion)', () => {
    unauthenticated(handSigned(valid({ role: 'admin' }), publicPem), options);
  });

  it('rejects an unsigned token (alg none)', () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify(valid())).toString('base64url');
    unauthenticated(`${header}.${payload}.`, options);
  });

  it('rejects an RS512 token signed with the matching private key (RS256 only)', () => {
    unauthenticated(jwt.sign(valid(), privatePem, { algorithm: 'RS512' }), options);
  });

  it('refuses every token when the public key is not a PEM key it can use', () => {
    const token = jwt.sign(valid(), privatePem, { algorithm: 'RS256' });
    expect(unauthenticated(token, { publicKey: 'not a key', maxTtlSeconds: MAX_TTL }).message).toBe('Token verification is not configured');
    const ed = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(unauthenticated(token, { publicKey: ed, maxTtlSeconds: MAX_TTL }).message).toBe('Token verification is not configured');
  });

  it('rejects an RS256 token signed with another key', () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    unauthenticated(jwt.sign(valid(), other, { algorithm: 'RS256' }), options);
  });
});

describe('verifyJwt with an ES256 (P-256) public key', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const options: JwtOptions = { publicKey: publicPem, issuer: 'https://idp.example', audience: 'kairos', maxTtlSeconds: MAX_TTL };
  const claims = valid({ role: 'admin', iss: 'https://idp.example', aud: 'kairos' });

  it('accepts an ES256 token signed with the matching private key', () => {
    expect(identityOf(jwt.sign(claims, privatePem, { algorithm: 'ES256' }), options)).toEqual({
      tenantId: 'acme',
      subject: 'user-42',
      role: 'ADMIN',
    });
  });

  it('rejects an ES256 token from another key, or with the wrong issuer or audience', () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    unauthenticated(jwt.sign(claims, other, { algorithm: 'ES256' }), options);
    unauthenticated(jwt.sign({ ...claims, iss: 'https://evil.example' }, privatePem, { algorithm: 'ES256' }), options);
    unauthenticated(jwt.sign({ ...claims, aud: 'someone-else' }, privatePem, { algorithm: 'ES256' }), options);
  });

  it('rejects an RS256 token and an HS256 token keyed with the PEM text (no algorithm confusion)', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    unauthenticated(jwt.sign(claims, rsa, { algorithm: 'RS256' }), options);
    unauthenticated(handSigned(claims, publicPem), options);
  });

  it('rejects an ES384 token (P-256 keys verify ES256 only)', () => {
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const p384Options: JwtOptions = {
      publicKey: p384.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      maxTtlSeconds: MAX_TTL,
    };
    const token = jwt.sign(valid(), p384.privateKey.export({ type: 'pkcs8', format: 'pem' }), { algorithm: 'ES384' });
    expect(unauthenticated(token, p384Options).message).toBe('Token verification is not configured');
  });
});

describe('signDevToken', () => {
  it('mints a token verifyJwt accepts, expiring in 24 hours by default', () => {
    const token = signDevToken(SECRET, { tenantId: 'dev-tenant', role: 'admin' });
    expect(identityOf(token, HS)).toEqual({ tenantId: 'dev-tenant', subject: 'dev:dev-tenant', role: 'ADMIN' });
    const claims = jwt.decode(token) as jwt.JwtPayload;
    expect(claims.exp).toBe(NOW_S + 86_400);
    expect(claims.iat).toBe(NOW_S);
  });

  it('honours subject and expiresInSeconds', () => {
    const token = signDevToken(SECRET, { tenantId: 't1', role: 'viewer', subject: 'ci', expiresInSeconds: 60 });
    expect(identityOf(token, HS)).toEqual({ tenantId: 't1', subject: 'ci', role: 'VIEWER' });
    expect((jwt.decode(token) as jwt.JwtPayload).exp).toBe(NOW_S + 60);
  });
});

describe('bearerToken', () => {
  it.each([
    ['Bearer abc.def.ghi', 'abc.def.ghi'],
    ['bearer abc', 'abc'],
    ['BEARER abc', 'abc'],
    ['Bearer    abc   ', 'abc'],
    ['Bearer\tabc', 'abc'],
  ])('reads the token from %j', (header, expected) => {
    expect(bearerToken(header)).toBe(expected);
  });

  it.each([
    [undefined],
    [null],
    [''],
    ['abc.def.ghi'],
    ['Bearer'],
    ['Bearer '],
    ['Basic dXNlcjpwYXNz'],
    ['Bearer abc def'],
    [' Bearer abc'],
    ['Bearerabc'],
  ])('returns null for %j', (header) => {
    expect(bearerToken(header)).toBeNull();
  });
});
