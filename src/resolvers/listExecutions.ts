import type { ObjectId } from 'mongodb';
import type { Context } from './context.type.js';
import { scopeOf } from './auth-checker.js';
import { fromGlobalId } from '../ids/globalId.js';
import { encodeCursor } from '../pagination/cursor.js';
import { parsePageRequest, toConnection } from '../pagination/pageRequest.js';
import type { ExecutionsArgs } from '../schema/connection.args.js';
import type { ExecutionConnection } from '../schema/execution.type.js';
import { toExecutionNode } from './mappers.js';
import { inTenantScan } from './tenantScan.js';

/** `executions` and `Job.executions`: newest first, keyset cursors on (scheduledFor, id). */
export async function listExecutions(ctx: Context, args: ExecutionsArgs, jobOfParent?: ObjectId): Promise<ExecutionConnection> {
  const { executions } = scopeOf(ctx);
  const page = parsePageRequest(args);
  const filter = args.filter ?? {};
  let jobId = jobOfParent ?? null;
  if (filter.jobId) {
    // An id that is malformed, of another type or of another tenant simply matches nothing.
    const parsed = fromGlobalId(filter.jobId, 'Job');
    if (!parsed || (jobId && !jobId.equals(parsed.id)))
      return toConnection(
        [],
        page,
        () => '',
        () => null,
      ) as ExecutionConnection;
    jobId = parsed.id;
  }
  const list = () =>
    executions.list(
      {
        jobId,
        statuses: filter.statuses,
        phase: filter.phase,
        scheduledAfter: filter.scheduledAfter,
        scheduledBefore: filter.scheduledBefore,
      },
      page,
    );
  // One job's page reads that job's executions; a page over all jobs reads the tenant's.
  const rows = jobId ? await list() : await inTenantScan(ctx.app.tenantScans, scopeOf(ctx).identity.tenantId, list);
  return toConnection(rows, page, (d) => encodeCursor({ at: d.scheduledFor, id: d._id }), toExecutionNode) as ExecutionConnection;
}
