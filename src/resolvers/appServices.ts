import type { Db } from 'mongodb';
import type { Tracer } from '@opentelemetry/api';
import type { Clock } from '../clock.js';
import type { JwtOptions } from '../auth/verifyToken.js';
import type { AuthFailureLog } from '../auth/authFailureLog.js';
import type { ExecutionEventBus } from '../events/executionEventBus.js';
import type { AlertEventBus } from '../events/alertEventBus.js';
import type { CancelSignals } from '../events/cancelSignals.js';
import type { RelayedExecutions } from '../events/relayedExecutions.js';
import type { AttemptClaims } from '../queue/attemptClaims.js';
import type { Logger } from '../logger.js';
import type { JobDeps } from '../jobs/jobDeps.js';
import type { TenantStore } from '../store/tenantStore.js';
import type { RateLimiter } from '../quotas/rateLimiter.js';
import type { TenantLock } from '../quotas/tenantLock.js';
import type { ScheduleSearchBudget } from '../quotas/scheduleSearchBudget.js';
import type { EventDeliveryBudget } from '../quotas/eventDeliveryBudget.js';
import type { KairosMetrics } from '../metrics/kairosMetrics.js';
import type { FlowLimiter } from '../quotas/flowLimiter.js';
import type { RecentReads } from '../quotas/recentReads.js';
import type { BulkOperationDoc } from '../domain/bulkOperation.js';
import type { BulkRunner } from '../executions/bulkRunner.js';
import type { BackfillDeps } from '../jobs/backfillJob.js';

/** Each tenant's turns at one kind of work in this process (the api's TenantRequestGate). */
export interface TenantTurns {
  /** Resolves with the turn's release, or null when too many of the tenant's wait already. */
  enter(tenantId: string): Promise<(() => void) | null>;
}

/**
 * The job and execution operations' dependencies apart from the caller's tenant-scoped stores, which
 * `jobDeps` adds per request: built once by the api role, so no operation picks its own out of a bag.
 * The quotas, the job counter and the waiting index here also answer viewer.quota and the write budget.
 */
export interface OperationServices extends Omit<JobDeps, 'jobs' | 'executions' | 'calendars' | 'changes' | 'alertRules'> {
  /** Serialises each tenant's createJob calls across replicas (the maxJobs check). */
  createLock: TenantLock;
  /** Publishes cancellations of running attempts to the workers (cancelExecution, retryExecution). */
  cancels: CancelSignals;
  /** The workers' attempt claims: an attempt may run before its start is in MongoDB (the deferred claim). */
  claims: AttemptClaims;
  /** The process's bulk operation runner (woken when one is created here) and BULK_MAX_EXECUTIONS. */
  bulk: { runner: Pick<BulkRunner, 'wake'>; maxExecutions: number };
  /** backfillJob's BACKFILL_MAX_OCCURRENCES and pace (BACKFILL_EXECUTIONS_PER_SECOND). */
  backfill: BackfillDeps['backfill'];
}

/**
 * What a GraphQL operation reaches through `ctx.app`: process-wide services, none of them another
 * tenant's data (the caller's own is in `ctx.scope`). Built once by the api role.
 */
export interface RequestServices {
  clock: Clock;
  operations: OperationServices;
  /** Counts each tenant's writes (mutations, manual triggers included) against maxExecutionsPerMinute. */
  rateLimiter: RateLimiter;
  /**
   * Each tenant's turns at reading its executions across all its jobs (a page without a job, the
   * stats): on FerretDB such a read loads every execution of the tenant, so a few at once take the
   * embedded server's cores from every other tenant (API_TENANT_SCANS_IN_FLIGHT).
   */
  tenantScans: TenantTurns;
  /** Each tenant's budget of previewSchedule searches (the API's main thread is shared). */
  searchBudget: ScheduleSearchBudget;
  /** Each tenant's budget of subscription events sent by this process (the main thread is shared). */
  eventBudget: EventDeliveryBudget;
  /** The executions relayed to subscribers as of each event (at most one read per event, none when derivable). */
  relayedExecutions: RelayedExecutions;
  /** Why an execution waits for its job's flow-control key, as the workers noted it (Execution.waitingFor). */
  flowWaits: Pick<FlowLimiter, 'waitNote'>;
  /** The bulk operations progress subscriptions poll, each read shared by all of one operation's subscribers in this process. */
  bulkProgressReads: RecentReads<BulkOperationDoc | null>;
  /** The process's metrics: served at /metrics, recorded by the GraphQL plugin and the subscriptions. */
  metrics: KairosMetrics;
}

/**
 * Who a credential names, and every tenant's stores and events a caller's scope is cut from: read
 * by createContext alone, never handed to a resolver.
 */
export interface ScopeSources {
  db: Db;
  jwt: JwtOptions;
  /** Rate-limited log of refused credentials. */
  authFailures: AuthFailureLog;
  /** Every tenant's records (the caller's own record store is cut from it). */
  tenants: TenantStore;
  /** Every tenant's status events (the caller's subscriptions are cut from it). */
  events: ExecutionEventBus;
  /** Every tenant's raised alerts (the caller's `alertRaised` is cut from it). */
  alertEvents: AlertEventBus;
}

/** The api role's dependencies, built once by its factory: the servers' own, what requests reach, and where scopes come from. */
export interface AppServices {
  /** Handed to every operation as `ctx.app`. */
  requests: RequestServices;
  scopes: ScopeSources;
  logger: Logger;
  /** KAIROS_MODE=development: introspection, GraphiQL and detailed errors. */
  development: boolean;
  /** The process's tracer (the no-op one when tracing is off): a span per GraphQL request over HTTP. */
  tracer: Tracer;
}
