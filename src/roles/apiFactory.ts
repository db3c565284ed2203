import type { KairosConfig } from '../config.js';
import type { ApiSettings } from '../config/apiSettings.js';
import { within } from '../clock.js';
import type { RedisClient } from '../redis/redisClient.js';
import { RelayedExecutions } from '../events/relayedExecutions.js';
import { ProcessSearchBudget } from '../quotas/processSearchBudget.js';
import { ScheduleSearchBudget } from '../quotas/scheduleSearchBudget.js';
import { EventDeliveryBudget } from '../quotas/eventDeliveryBudget.js';
import { TenantLock } from '../quotas/tenantLock.js';
import { JobCounter } from '../quotas/jobCounter.js';
import { jobScheduling } from '../scheduler/jobScheduling.js';
import { AuthFailureLog } from '../auth/authFailureLog.js';
import type { AppServices, RequestServices, ScopeSources } from '../resolvers/appServices.js';
import { TenantRequestGate } from '../api/tenantRequestGate.js';
import { ApiServer } from '../api/httpServer.js';
import { kairosSchema } from '../api/buildSchema.js';
import type { Database } from './connections.js';
import type { ProcessServices } from './processServices.js';
import type { SharedServices } from './sharedServices.js';
import { createBulkRunner } from './bulkRunnerFactory.js';
import { RecentReads } from '../quotas/recentReads.js';
import { PROGRESS_EVERY_MS } from '../executions/bulkProgress.js';

const READY_TIMEOUT_MS = 2000;

/** The settings the api role reads. */
export type ApiConfig = ApiSettings & Pick<KairosConfig, 'mode' | 'redisPrefix' | 'allowPrivateTargets' | 'lookAheadMs'>;

/** What the api role is built from. */
export interface ApiRoleDeps {
  config: ApiConfig;
  runtime: ProcessServices;
  database: Database;
  /** The command connection: locks, counters, budgets; pinged by /readyz. */
  redis: RedisClient;
  shared: Pick<
    SharedServices,
    'tenants' | 'quotas' | 'rateLimiter' | 'events' | 'queues' | 'waitingIndex' | 'cancels' | 'claims' | 'materialise' | 'flow'
  >;
  /** The handler names createJob and updateJob accept: those this process loaded (workers must load the same). */
  handlerNames: ReadonlySet<string>;
}

/**
 * Starts the api role: its HTTP and WebSocket servers own their sockets and are closed by the
 * process's closers (registered once listening), before the connections they use.
 * Resolves with the port it listens on.
 */
export async function startApiRole({ config, runtime, database, redis, shared, handlerNames }: ApiRoleDeps): Promise<number> {
  const { clock, logger, metrics, tracer, closers } = runtime;
  const { db } = database;
  const operations = {
    scheduling: jobScheduling(shared.materialise, { lookAheadMs: config.lookAheadMs }),
    logger,
    queues: shared.queues,
    events: shared.events,
    handlerNames,
    allowPrivateTargets: config.allowPrivateTargets,
    jobCounter: new JobCounter(redis, config.redisPrefix),
    quotas: shared.quotas,
    waiting: shared.waitingIndex,
    createLock: new TenantLock(redis, config.redisPrefix, 'create-job', logger),
    cancels: shared.cancels,
    claims: shared.claims,
  };
  const bulkRunner = createBulkRunner({
    db,
    redis,
    redisPrefix: config.redisPrefix,
    settings: config.bulk,
    operations,
    clock,
    logger,
  });
  // Registered before the server's closer, so it stops after the server: no new operation is woken meanwhile.
  closers.add(() => bulkRunner.stop());
  const requests: RequestServices = {
    clock,
    operations: { ...operations, bulk: { runner: bulkRunner, maxExecutions: config.bulk.maxExecutions } },
    rateLimiter: shared.rateLimiter,
    // Nested in a request's turn, so the waiting are already bounded by the request gate's.
    tenantScans: new TenantRequestGate({ inFlight: config.tenantScansInFlight, queued: 10_000 }),
    searchBudget: new ScheduleSearchBudget(
      shared.rateLimiter,
      config.scheduleSearchesPerMinute,
      new ProcessSearchBudget(config.scheduleSearchesPerSecondPerProcess, clock),
    ),
    eventBudget: new EventDeliveryBudget(config.subscriptionEventsPerSecond, clock),
    relayedExecutions: new RelayedExecutions(),
    flowWaits: shared.flow,
    bulkProgressReads: new RecentReads(clock, PROGRESS_EVERY_MS),
    metrics,
  };
  const scopes: ScopeSources = {
    db,
    jwt: config.jwt,
    authFailures: new AuthFailureLog(logger, clock),
    tenants: shared.tenants,
    events: shared.events,
  };
  const app: AppServices = { requests, scopes, logger, development: config.mode === 'development', tracer };
  const api = new ApiServer(await kairosSchema(), app, {
    port: config.port,
    host: config.host,
    paceRefusalsMs: config.rateLimitedAnswerDelayMs,
    tenantRequests: config.tenantRequests,
    // A paused server never answers: a probe must not hang for the socket timeout.
    ready: () =>
      within(
        Promise.all([db.command({ ping: 1 }), redis.ping()]).then(() => true),
        READY_TIMEOUT_MS,
        false,
      ),
  });
  await api.start();
  closers.add(() => api.stop());
  bulkRunner.start();
  return api.port;
}
