import type { ExecutionStore } from '../store/executionStore.js';
import type { NearTermDeps } from './materialiseNearTerm.js';
import type { JobCounter } from '../quotas/jobCounter.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';
import type { StatusPublisher } from '../transitions/statusEvents.js';
import type { TenantQuotas } from '../quotas/tenantQuotas.js';
import type { WaitingCounts } from '../quotas/waitingQuota.js';

/**
 * What the job lifecycle operations need: the caller's tenant-scoped stores, plus the process-wide
 * queue and event bus (the api's own, not the scheduler's `materialise` ones, which only the
 * near-term materialisation uses).
 */
export interface JobDeps extends NearTermDeps {
  executions: ExecutionStore;
  /** Where executions are enqueued and cancelled ones removed. */
  queues: ExecutionQueues;
  /** Where status events are published (publish only). */
  events: StatusPublisher;
  handlerNames: ReadonlySet<string>;
  /** Each tenant's job count (createJob's quota check; deleteJob gives a slot back). */
  jobCounter: JobCounter;
  /** The tenants' quotas, from the cache (maxWaitingExecutions for triggerJob and retryExecution). */
  quotas: TenantQuotas;
  /** Each tenant's waiting executions, for the maxWaitingExecutions check of triggerJob and retryExecution. */
  waiting: WaitingCounts;
  /** ALLOW_PRIVATE_TARGETS: whether a target URL may name a private IP literal. */
  allowPrivateTargets: boolean;
}
