import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { UnauthenticatedError } from '../errors/index.js';
import type { Credential } from '../domain/identity.js';
import { ROLE_NAMES, type RoleName } from '../domain/role.js';
import { publicKeyAlgorithm } from './publicKeyAlgorithm.js';

export interface JwtOptions {
  /** HS256 shared secret (JWT_SECRET). Exclusive with `publicKey`. */
  secret?: string;
  /** PEM public key (JWT_PUBLIC_KEY): an RSA key verifies RS256 only, a P-256 key ES256 only. */
  publicKey?: string;
  /** Required `iss` when set (JWT_ISSUER). */
  issuer?: string;
  /** Required `aud` when set (JWT_AUDIENCE). */
  audience?: string;
  /** Longest lifetime accepted, `exp` minus now (JWT_MAX_TTL_SECONDS): a leaked token must not work for years. */
  maxTtlSeconds: number;
}

/** A token's `role` claim spells the role in lower case. */
const ROLES = new Map<string, RoleName>(ROLE_NAMES.map((role) => [role.toLowerCase(), role]));
/** Tenant ids end up in keys and logs: keep them to a safe alphabet. */
const TENANT_ID = /^[A-Za-z0-9_.-]{1,128}$/;
/** Tolerated clock skew between the token issuer and Kairos, for `exp` and `nbf`. */
export const CLOCK_TOLERANCE_SECONDS = 5;

/** Strips `Bearer ` from an Authorization header value; null when absent or of another scheme. */
export function bearerToken(header: string | undefined | null): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}

/** Parsed public keys with the one algorithm each may verify; a PEM is parsed once. */
const publicKeys = new Map<string, { key: KeyObject; algorithm: 'RS256' | 'ES256' } | null>();
/**
 * Secrets as key objects, made once: given a string, jsonwebtoken first tries to parse it as a PEM
 * public key and builds a key from the error, on every request (a tenth of the API's CPU under load).
 */
const secretKeys = new Map<string, KeyObject>();

function verificationKey(options: JwtOptions): { key: KeyObject; algorithm: jwt.Algorithm } | null {
  // Both configured is ambiguous (loadConfig refuses it): verify nothing rather than guess.
  if (options.secret && options.publicKey) return null;
  if (options.secret) {
    let key = secretKeys.get(options.secret);
    if (!key) secretKeys.set(options.secret, (key = createSecretKey(Buffer.from(options.secret, 'utf8'))));
    return { key, algorithm: 'HS256' };
  }
  if (!options.publicKey) return null;
  if (!publicKeys.has(options.publicKey)) publicKeys.set(options.publicKey, publicKeyAlgorithm(options.publicKey));
  return publicKeys.get(options.publicKey) ?? null;
}

/**
 * Verifies a JWT with exactly one algorithm, the one of the configured key (HS256 for a secret,
 * RS256 or ES256 for a public key: no `none`, no HS/RS confusion), `exp` required and `nbf`
 * honoured with CLOCK_TOLERANCE_SECONDS of skew at `now`, `exp` at most `maxTtlSeconds` ahead, issuer
 * and audience when configured;
 * then reads the identity from its claims: `tid` tenant, `sub` subject, `role` admin|member|viewer.
 * Any failure is UNAUTHENTICATED with a message that never echoes the token.
 */
export function verifyJwt(token: string, options: JwtOptions, now: Date = new Date()): Credential {
  const verification = verificationKey(options);
  if (!verification) throw new UnauthenticatedError('Token verification is not configured');
  let claims: jwt.JwtPayload;
  try {
    const decoded = jwt.verify(token, verification.key, {
      algorithms: [verification.algorithm],
      issuer: options.issuer,
      audience: options.audience,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      clockTimestamp: Math.floor(now.getTime() / 1000),
    });
    if (typeof decoded === 'string') throw new Error('not a JSON payload');
    claims = decoded;
  } catch (error) {
    throw refused(whatFailed(error, verification.algorithm));
  }
  if (typeof claims.exp !== 'number') throw refused('The token has no expiry (exp)');
  const { maxTtlSeconds } = options;
  if (claims.exp - now.getTime() / 1000 > maxTtlSeconds + CLOCK_TOLERANCE_SECONDS) {
    throw refused(`The token is valid for longer than the accepted maximum of ${maxTtlSeconds} seconds`);
  }
  const tenantId: unknown = claims.tid;
  if (typeof tenantId !== 'string' || !TENANT_ID.test(tenantId)) throw refused('The token has no valid tenant (tid)');
  const role = typeof claims.role === 'string' ? ROLES.get(claims.role.toLowerCase()) : undefined;
  if (!role) throw refused('The token has no valid role (admin, member or viewer)');
  return {
    identity: { tenantId, subject: typeof claims.sub === 'string' ? claims.sub : '', role },
    validUntil: new Date((claims.exp + CLOCK_TOLERANCE_SECONDS) * 1000),
  };
}

/** What to do about a refused token, after what failed; the same for every failure. */
export const TOKEN_ADVICE = 'mint a new one with npm run -s token (in development) or get one from your token issuer';

function refused(reason: string): UnauthenticatedError {
  return new UnauthenticatedError(`${reason}; ${TOKEN_ADVICE}`);
}

/**
 * Which check a token failed (its format, its signature or algorithm, or a claim), in words that
 * name no key, secret or expected claim value, so a caller learns what to fix and nothing more.
 */
function whatFailed(error: unknown, algorithm: jwt.Algorithm): string {
  if (error instanceof jwt.TokenExpiredError) return 'The token has expired (exp)';
  if (error instanceof jwt.NotBeforeError) return 'The token is not valid yet (nbf)';
  const message = error instanceof Error ? error.message : '';
  if (message === 'invalid signature') {
    return 'The token signature does not verify: it was signed with another key (a development secret is regenerated when .data/ is deleted) or altered';
  }
  if (message === 'invalid algorithm' || message === 'jwt signature is required') {
    return `The token is not signed with ${algorithm}, the one algorithm this server accepts`;
  }
  if (message.startsWith('jwt issuer invalid')) return 'The token issuer (iss) is not the one this server accepts';
  if (message.startsWith('jwt audience invalid')) return 'The token audience (aud) is not the one this server accepts';
  return 'The token is not a well-formed JWT (three base64url parts: header, JSON claims, signature)';
}

/** Mints a development token (the `npm run token` command and tests). */
export function signDevToken(
  secret: string,
  claims: { tenantId: string; role: 'admin' | 'member' | 'viewer'; subject?: string; expiresInSeconds?: number },
): string {
  return jwt.sign({ tid: claims.tenantId, role: claims.role }, secret, {
    algorithm: 'HS256',
    subject: claims.subject ?? `dev:${claims.tenantId}`,
    expiresIn: claims.expiresInSeconds ?? 24 * 3600,
  });
}
