import type { Db } from 'mongodb';
import type { Clock } from '../clock.js';
import type { JwtOptions } from '../auth/verifyToken.js';
import type { ExecutionEventBus } from '../events/executionEventBus.js';
import type { StatusPublisher } from '../transitions/statusEvents.js';
import type { CancelSignals } from '../events/cancelSignals.js';
import type { AttemptClaims } from '../queue/attemptClaims.js';
import type { RelayedExecutions } from '../events/relayedExecutions.js';
import type { Logger } from '../logger.js';
import type { MaterialiseDeps } from '../scheduler/materialise.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';
import type { WaitingIndex } from '../queue/waitingIndex.js';
import type { TenantStore } from '../store/tenantStore.js';
import type { TenantQuotas } from '../quotas/tenantQuotas.js';
import type { RateLimiter } from '../quotas/rateLimiter.js';
import type { TenantLock } from '../quotas/tenantLock.js';
import type { ScheduleSearchBudget } from '../quotas/scheduleSearchBudget.js';
import type { EventDeliveryBudget } from '../quotas/eventDeliveryBudget.js';
import type { AuthFailureLog } from '../auth/authFailureLog.js';
import type { JobCounter } from '../quotas/jobCounter.js';
import type { KairosMetrics } from '../metrics/kairosMetrics.js';
import type { Tracer } from '@opentelemetry/api';

/** Each tenant's turns at one kind of work in this process (the api's TenantRequestGate). */
export interface TenantTurns {
  /** Resolves with the turn's release, or null when too many of the tenant's wait already. */
  enter(tenantId: string): Promise<(() => void) | null>;
}

/** Process-wide services the api role hands to resolvers through the context (built once by the composition root). */
export interface AppServices {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** Rate-limited log of refused credentials. */
  authFailures: AuthFailureLog;
  jwt: JwtOptions;
  /** Every tenant's records and events: only createContext uses them, to build the caller's scope. */
  tenants: TenantStore;
  /** The tenants' quotas, cached briefly for the per-request checks. */
  quotas: TenantQuotas;
  /** Counts each tenant's writes (mutations, manual triggers included) against maxExecutionsPerMinute. */
  rateLimiter: RateLimiter;
  /** Each tenant's budget of subscription events sent by this process (the main thread is shared). */
  eventBudget: EventDeliveryBudget;
  /**
   * Each tenant's turns at reading its executions across all its jobs (a page without a job, the
   * stats): on FerretDB such a read loads every execution of the tenant, so a few at once take the
   * embedded server's cores from every other tenant (API_TENANT_SCANS_IN_FLIGHT).
   */
  tenantScans: TenantTurns;
  /** Each tenant's budget of previewSchedule searches (the API's main thread is shared). */
  searchBudget: ScheduleSearchBudget;
  /** Serialises each tenant's createJob calls across replicas (the maxJobs check). */
  createJobLock: TenantLock;
  /** Each tenant's job count in Redis (the maxJobs check and viewer.quota.jobCount without a count). */
  jobCounter: JobCounter;
  events: ExecutionEventBus;
  /** The execution queues the api enqueues to (triggers, retries) and removes cancelled executions from. */
  queues: ExecutionQueues;
  /** Each tenant's waiting executions (maxWaitingExecutions: triggerJob's and retryExecution's check, viewer.quota). */
  waitingIndex: WaitingIndex;
  /** The job operations' status events: the bus's publishing half (subscriptions read through the scope). */
  statusPublisher: StatusPublisher;
  /** The executions relayed to subscribers as of each event (at most one read per event, none when derivable). */
  relayedExecutions: RelayedExecutions;
  /** Publishes cancellations of running attempts to the workers. */
  cancels: CancelSignals;
  /** The workers' attempt claims: an attempt may run before its start is in MongoDB (the deferred claim). */
  claims: AttemptClaims;
  /** What the near-term materialisation of a new or changed job needs (the scheduler's materialise). */
  materialise: MaterialiseDeps;
  handlerNames: ReadonlySet<string>;
  /** ALLOW_PRIVATE_TARGETS: whether a target URL may name a private IP literal. */
  allowPrivateTargets: boolean;
  lookAheadMs: number;
  development: boolean;
  /** The process's metrics: served at /metrics, recorded by the GraphQL plugin and the subscriptions. */
  metrics: KairosMetrics;
  /** The process's tracer (the no-op one when tracing is off): a span per GraphQL request over HTTP. */
  tracer: Tracer;
}
