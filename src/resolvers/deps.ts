import type { Context } from './context.type.js';
import { scopeOf } from './auth-checker.js';
import type { JobDeps } from '../jobs/jobDeps.js';
import type { OperationServices } from './appServices.js';

/** The job and execution operations' dependencies: the process-wide ones, plus the caller's tenant-scoped stores, change log and alert rules. */
export type OperationDeps = OperationServices & Pick<JobDeps, 'jobs' | 'executions' | 'calendars' | 'changes' | 'alertRules'>;

/** The job and execution operations' dependencies, bound to the caller's tenant. */
export function jobDeps(ctx: Context): OperationDeps {
  const { jobs, executions, calendars, changeLog, alertSettings } = scopeOf(ctx);
  return { ...ctx.app.operations, jobs, executions, calendars, changes: changeLog, alertRules: alertSettings };
}
