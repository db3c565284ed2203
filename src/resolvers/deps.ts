import type { Context } from './context.type.js';
import { scopeOf } from './auth-checker.js';
import type { JobDeps } from '../jobs/jobDeps.js';

/** The job and execution operations' dependencies, bound to the caller's tenant. */
export function jobDeps(ctx: Context): JobDeps {
  const scope = scopeOf(ctx);
  const { materialise, queues, statusPublisher, handlerNames, allowPrivateTargets, lookAheadMs, logger, jobCounter, quotas, waitingIndex } =
    ctx.app;
  return {
    jobs: scope.jobs,
    executions: scope.executions,
    materialise,
    queues,
    events: statusPublisher,
    handlerNames,
    allowPrivateTargets,
    lookAheadMs,
    logger,
    jobCounter,
    quotas,
    waiting: waitingIndex,
  };
}
