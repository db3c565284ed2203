import DataLoader from 'dataloader';
import { ObjectId } from 'mongodb';
import { authenticate } from '../auth/authenticate.js';
import { bearerToken } from '../auth/verifyToken.js';
import { KairosError, UnauthenticatedError, UnavailableError } from '../errors/index.js';
import { inTenantScan } from '../resolvers/tenantScan.js';
import { JobStore } from '../store/jobStore.js';
import { ExecutionStore } from '../store/executionStore.js';
import { CalendarStore } from '../store/calendarStore.js';
import { ApiKeyStore } from '../store/apiKeyStore.js';
import { BulkOperationStore } from '../store/bulkOperationStore.js';
import { ApiKeyLookup } from '../store/apiKeyLookup.js';
import { OwnTenantStore } from '../store/ownTenantStore.js';
import { AlertSettingsStore } from '../store/alertSettingsStore.js';
import { AlertStore } from '../store/alertStore.js';
import { ChangeStore } from '../store/changeStore.js';
import { ChangeLog, actorOf } from '../changes/changeLog.js';
import { TenantEvents } from '../events/tenantEvents.js';
import { errorMessage, type Logger } from '../logger.js';
import type { AppServices, ScopeSources, TenantTurns } from '../resolvers/appServices.js';
import type { Context, TenantScope } from '../resolvers/context.type.js';

/** The caller's stores, events and loaders, cut from every tenant's by its identity. */
function tenantScope(
  { db, tenants, events, alertEvents }: ScopeSources,
  tenantScans: TenantTurns,
  identity: TenantScope['identity'],
  logger: Logger,
): TenantScope {
  const jobs = new JobStore(db, identity.tenantId);
  const executions = new ExecutionStore(db, identity.tenantId);
  const changes = new ChangeStore(db, identity.tenantId);
  return {
    identity,
    jobs,
    executions,
    calendars: new CalendarStore(db, identity.tenantId),
    apiKeys: new ApiKeyStore(db, identity.tenantId),
    bulkOperations: new BulkOperationStore(db, identity.tenantId),
    tenant: new OwnTenantStore(tenants, identity.tenantId),
    alertSettings: new AlertSettingsStore(db, identity.tenantId),
    alerts: new AlertStore(db, identity.tenantId),
    alertEvents: { stream: () => alertEvents.stream(identity.tenantId) },
    changes,
    changeLog: new ChangeLog(changes, actorOf(identity), logger),
    events: new TenantEvents(events, identity.tenantId),
    jobLoader: new DataLoader(async (ids: readonly string[]) => {
      const found = await jobs.findByIds(ids.map((id) => new ObjectId(id)));
      const byId = new Map(found.map((j) => [j._id.toHexString(), j]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
    // A page of jobs' last executions reads the tenant's executions: it takes one of the tenant's scan turns.
    lastExecutionLoader: new DataLoader((ids: readonly string[]) =>
      inTenantScan(tenantScans, identity.tenantId, () => executions.newestStartedOfJobs(ids.map((id) => new ObjectId(id)))),
    ),
  };
}

/**
 * Builds a context from an Authorization header value (a JWT or an API key, looked up on every
 * call); never throws (resolvers report UNAUTHENTICATED).
 */
export async function createContext(api: AppServices, authorization: string | null | undefined): Promise<Context> {
  const { requests: app, scopes, logger } = api;
  const token = bearerToken(authorization);
  if (!token) {
    const authError = new UnauthenticatedError('An Authorization: Bearer <token> header is required');
    scopes.authFailures.record({ code: authError.code, reason: authError.message });
    return { app, scope: null, authError, validUntil: null };
  }
  try {
    const { identity, validUntil } = await authenticate({ jwt: scopes.jwt, apiKeys: new ApiKeyLookup(scopes.db) }, token, app.clock());
    return { app, scope: tenantScope(scopes, app.tenantScans, identity, logger), authError: null, validUntil };
  } catch (error) {
    if (error instanceof KairosError) {
      scopes.authFailures.record({ code: error.code, reason: error.message });
      return { app, scope: null, authError: error, validUntil: null };
    }
    // The key lookup failed (MongoDB down): no access, but the credential is not bad either, so
    // this is INTERNAL_SERVER_ERROR (not UNAUTHENTICATED) and sockets are kept (see socketAuth).
    logger.error('could not authenticate a request', { error: errorMessage(error) });
    return {
      app,
      scope: null,
      authError: new UnavailableError('The credential could not be checked right now; try again shortly'),
      validUntil: null,
    };
  }
}
