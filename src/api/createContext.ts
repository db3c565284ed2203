import DataLoader from 'dataloader';
import { ObjectId } from 'mongodb';
import { bearerToken, verifyJwt } from '../auth/verifyToken.js';
import { KairosError, UnauthenticatedError } from '../errors/index.js';
import { JobStore } from '../store/jobStore.js';
import { ExecutionStore } from '../store/executionStore.js';
import type { AppServices } from './appServices.js';
import type { Context, TenantScope } from './context.type.js';

function tenantScope(app: AppServices, identity: TenantScope['identity']): TenantScope {
  const jobs = new JobStore(app.db, identity.tenantId);
  return {
    identity,
    jobs,
    executions: new ExecutionStore(app.db, identity.tenantId),
    jobLoader: new DataLoader(async (ids: readonly string[]) => {
      const found = await jobs.findByIds(ids.map((id) => new ObjectId(id)));
      const byId = new Map(found.map((j) => [j._id.toHexString(), j]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
  };
}

/** Builds a context from an Authorization header value; never throws (resolvers report UNAUTHENTICATED). */
export function createContext(app: AppServices, authorization: string | null | undefined): Context {
  const token = bearerToken(authorization);
  if (!token) return { app, scope: null, authError: new UnauthenticatedError('An Authorization: Bearer <token> header is required') };
  try {
    return { app, scope: tenantScope(app, verifyJwt(token, app.jwt)), authError: null };
  } catch (error) {
    return { app, scope: null, authError: error instanceof KairosError ? error : new UnauthenticatedError() };
  }
}
