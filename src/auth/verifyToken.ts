import jwt from 'jsonwebtoken';
import { UnauthenticatedError } from '../errors/index.js';
import type { Identity, RoleName } from './identity.js';

export interface JwtOptions {
  /** HS256 shared secret. */
  secret?: string;
  /** PEM public key for RS256/ES256. */
  publicKey?: string;
  issuer?: string;
  audience?: string;
}

const ROLES = new Map<string, RoleName>([
  ['admin', 'ADMIN'],
  ['member', 'MEMBER'],
  ['viewer', 'VIEWER'],
]);
/** Tenant ids end up in keys and logs: keep them to a safe alphabet. */
const TENANT_ID = /^[A-Za-z0-9_.-]{1,128}$/;
const CLOCK_TOLERANCE_SECONDS = 5;

/** Strips `Bearer ` from an Authorization header value; null when absent or of another scheme. */
export function bearerToken(header: string | undefined | null): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}

/**
 * Verifies a JWT (algorithms pinned to the configured key type) and reads the identity from its
 * claims: `tid` tenant, `sub` subject, `role` admin|member|viewer, `exp` required.
 * Any failure is UNAUTHENTICATED with a message that never echoes the token.
 */
export function verifyJwt(token: string, options: JwtOptions): Identity {
  const key = options.secret ?? options.publicKey;
  if (!key) throw new UnauthenticatedError('Token verification is not configured');
  let claims: jwt.JwtPayload;
  try {
    const decoded = jwt.verify(token, key, {
      algorithms: options.secret ? ['HS256'] : ['RS256', 'ES256'],
      issuer: options.issuer,
      audience: options.audience,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    });
    if (typeof decoded === 'string') throw new Error('not a JSON payload');
    claims = decoded;
  } catch (error) {
    const expired = error instanceof jwt.TokenExpiredError;
    throw new UnauthenticatedError(expired ? 'The token has expired' : 'The token is invalid');
  }
  if (typeof claims.exp !== 'number') throw new UnauthenticatedError('The token has no expiry (exp)');
  const tenantId = claims.tid;
  if (typeof tenantId !== 'string' || !TENANT_ID.test(tenantId)) throw new UnauthenticatedError('The token has no valid tenant (tid)');
  const role = typeof claims.role === 'string' ? ROLES.get(claims.role.toLowerCase()) : undefined;
  if (!role) throw new UnauthenticatedError('The token has no valid role (admin, member or viewer)');
  return { tenantId, subject: typeof claims.sub === 'string' ? claims.sub : '', role };
}

/** Mints a development token (the `npm run token` command and tests). */
export function signDevToken(secret: string, claims: { tenantId: string; role: 'admin' | 'member' | 'viewer'; subject?: string; expiresInSeconds?: number }): string {
  return jwt.sign({ tid: claims.tenantId, role: claims.role }, secret, {
    algorithm: 'HS256',
    subject: claims.subject ?? `dev:${claims.tenantId}`,
    expiresIn: claims.expiresInSeconds ?? 24 * 3600,
  });
}
