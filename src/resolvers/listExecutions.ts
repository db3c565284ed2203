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
import type { JobStore } from '../store/jobStore.js';
import { LABEL_LIMITS, parseLabels } from '../domain/labels.js';
import { parseExternalId } from '../domain/externalId.js';
import { BadUserInputError } from '../errors/index.js';
import { toExecutionNode } from './mappers.js';
import { inTenantScan } from './tenantScan.js';

/**
 * An ExecutionFilter as the store takes it (`executions`, `Job.executions`, the bulk operations);
 * null when it matches nothing: a job id that is malformed, of another type or of another tenant
 * (looked up by the store, which adds the tenant), another job than the parent's, or labels or a job
 * external id no job of the tenant has. Labels and an external id are resolved to the ids of the jobs
 * that have them now (at most LABEL_LIMITS.filterJobs), then the executions are read by job id:
 * executions carry no labels, so materialising an occurrence costs what it did (docs/architecture.md,
 * "Labels and external ids").
 */
export async function executionListFilter(
  jobs: Pick<JobStore, 'idsMatching'>,
  filter: ExecutionFilter,
  jobOfParent?: ObjectId,
): Promise<ExecutionListFilter | null> {
  let jobId = jobOfParent ?? null;
  if (filter.jobId) {
    const parsed = fromGlobalId(filter.jobId, 'Job');
    if (!parsed || (jobId && !jobId.equals(parsed.id))) return null;
    jobId = parsed.id;
  }
  let jobIds: ObjectId[] | null = null;
  const labels = parseLabels(filter.labels, 'filter.labels');
  const externalId = parseExternalId(filter.jobExternalId, 'filter.jobExternalId');
  if (labels.length > 0 || externalId !== null) {
    const matching = await jobs.idsMatching({ labels, externalId }, LABEL_LIMITS.filterJobs + 1);
    if (matching.length > LABEL_LIMITS.filterJobs) {
      throw new BadUserInputError(
        `filter.labels match more than ${LABEL_LIMITS.filterJobs} jobs; add a label, a jobId or a jobExternalId to narrow it`,
        'filter.labels',
      );
    }
    const parent = jobId;
    if (parent) {
      if (!matching.some((id) => id.equals(parent))) return null;
    } else if (matching.length === 1) jobId = matching[0];
    else if (matching.length === 0) return null;
    else jobIds = matching;
  }
  return {
    jobId,
    jobIds,
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
  const filter = await executionListFilter(scopeOf(ctx).jobs, args.filter ?? {}, jobOfParent);
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
