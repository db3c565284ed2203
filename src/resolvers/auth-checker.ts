import type { AuthChecker } from 'type-graphql';
import type { Context } from './context.type.js';
import { ForbiddenError, UnauthenticatedError } from '../errors/index.js';
import { hasRole } from '../domain/identity.js';
import type { RoleName } from '../domain/role.js';

/**
 * type-graphql's auth checker: `@Authorized()` needs any valid token, `@Authorized('MEMBER')`
 * at least that role (VIEWER < MEMBER < ADMIN). Throws our own errors so codes stay stable.
 */
export const authChecker: AuthChecker<Context, RoleName> = ({ context }, roles) => {
  if (!context.scope) throw context.authError ?? new UnauthenticatedError();
  const required = roles[0];
  if (required && !hasRole(context.scope.identity.role, required)) {
    throw new ForbiddenError(`This operation needs the ${required} role; the token has ${context.scope.identity.role}`);
  }
  return true;
};

/** The caller's tenant scope; only for resolvers already guarded by @Authorized. */
export function scopeOf(context: Context): NonNullable<Context['scope']> {
  if (!context.scope) throw context.authError ?? new UnauthenticatedError();
  return context.scope;
}
