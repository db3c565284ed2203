import type { ExecutionStore } from '../store/executionStore.js';
import type { NearTermDeps } from './materialiseNearTerm.js';
import type { JobCounter } from '../quotas/jobCounter.js';

/**
 * What the job lifecycle operations need: the caller's tenant-scoped stores, plus the process-wide
 * queue and event bus (reached through `materialise`, which carries both).
 */
export interface JobDeps extends NearTermDeps {
  executions: ExecutionStore;
  handlerNames: ReadonlySet<string>;
  /** Each tenant's job count (createJob's quota check; deleteJob gives a slot back). */
  jobCounter: JobCounter;
  /** ALLOW_PRIVATE_TARGETS: whether a target URL may name a private IP literal. */
  allowPrivateTargets: boolean;
}
