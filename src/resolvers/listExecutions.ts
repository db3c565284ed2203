import type { ObjectId } from 'mongodb';
import type { Context } from './context.type.js';
import { scopeOf } from './auth-checker.js';
import { fromGlobalId } from '../ids/globalId.js';
import { encodeCursor } from '../pagination/cursor.js';
import { parsePageRequest, toConnection } from '../pagination/pageRequest.js';
import type { ExecutionsArgs } from '../schema/connection.args.js';
import type { ExecutionConnection } from '../schema/execution.type.js';
import type { ExecutionFilter } from '../schema/execution.input.js';
import type { ExecutionListFilter } from '../store/executionStore.js';
import { toExecutionNode } from './mappers.js';
import { inTenantScan } from './tenantScan.js';

/**
 * An ExecutionFilter as the store takes it (`executions`, `Job.executions`, the bulk operations);
 * null when it matches nothing: a job id that is malformed, of another type or of another tenant
 * (looked up by the store, which adds the tenant), or another job than the parent's.
 */
export function executionListFilter(filter: ExecutionFilter, jobOfParent?: ObjectId): ExecutionListFilter | null {
  let jobId = jobOfParent ?? null;
  if (filter.jobId) {
    const parsed = fromGlobalId(filter.jobId, 'Job');
    if (!parsed || (jobId && !jobId.equals(parsed.id))) return null;
    jobId = parsed.id;
  }
  return {
    jobId,
    statuses: filter.statuses,
    phase: filter.phase,
    scheduledAfter: filter.scheduledAfter,
    scheduledBefore: filter.scheduledBefore,
    finishedAfter: filter.finishedAfter,
    finishedBefore: filter.finishedBefore,
  };
}

/** `executions` and `Job.executions`: newest first, keyset cursors on (scheduledFor, id). */
export async function listExecutions(ctx: Context, args: ExecutionsArgs, jobOfParent?: ObjectId): Promise<ExecutionConnection> {
  const { executions } = scopeOf(ctx);
  const page = parsePageRequest(args);
  const filter = executionListFilter(args.filter ?? {}, jobOfParent);
  // An id that is malformed, of another type or of another tenant simply matches nothing.
  if (!filter)
    return toConnection(
      [],
      page,
      () => '',
      () => null,
    ) as ExecutionConnection;
  const list = () => executions.list(filter, page);
  // One job's page reads that job's executions; a page over all jobs reads the tenant's.
  const rows = filter.jobId ? await list() : await inTenantScan(ctx.app.tenantScans, scopeOf(ctx).identity.tenantId, list);
  return toConnection(rows, page, (d) => encodeCursor({ at: d.scheduledFor, id: d._id }), toExecutionNode) as ExecutionConnection;
}
