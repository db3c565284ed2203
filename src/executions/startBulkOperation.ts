import { ObjectId } from 'mongodb';
import type { BulkOperationDoc, BulkOperationKind } from '../domain/bulkOperation.js';
import { ConflictError } from '../errors/index.js';
import type { BulkOperationStore } from '../store/bulkOperationStore.js';
import type { ExecutionListFilter, ExecutionStore } from '../store/executionStore.js';
import type { JobStore } from '../store/jobStore.js';
import { bulkStatuses, checkMatched, parseOperationId } from './bulkLimits.js';
import type { BulkRunner } from './bulkRunner.js';
import type { ChangeRecorder } from '../changes/changeLog.js';
import { toGlobalId } from '../ids/globalId.js';

/** What starting a bulk operation needs: the caller's tenant's stores, the process's runner and the limit. */
export interface BulkStartDeps {
  bulkOperations: Pick<BulkOperationStore, 'findByOperationId' | 'create'>;
  executions: Pick<ExecutionStore, 'snapshot'>;
  runner: Pick<BulkRunner, 'wake'>;
  /** BULK_MAX_EXECUTIONS. */
  maxExecutions: number;
  /** The caller's change history: the operation's start is recorded, not each execution it retries or cancels. */
  changes: ChangeRecorder;
  /** The caller's jobs: a start over one job is recorded in that job's history only when the job is the tenant's. */
  jobs: Pick<JobStore, 'findById'>;
}

/**
 * Creates a bulk retry or cancel over the executions `filter` matches now (null: a filter that can
 * match nothing, e.g. another tenant's job), narrowed to the statuses the kind applies to, and wakes
 * the runner. The matched set is fixed here: executions that match later are not in it. Idempotent on
 * `operationId`: an operation of the tenant with that key is returned as it is, nothing done again.
 * A filter matching more than maxExecutions is BAD_USER_INPUT, with nothing written. A set that is
 * empty makes an operation SUCCEEDED at once.
 */
export async function startBulkOperation(
  deps: BulkStartDeps,
  kind: BulkOperationKind,
  filter: ExecutionListFilter | null,
  operationId: string | null | undefined,
  now: Date,
): Promise<BulkOperationDoc> {
  const key = parseOperationId(operationId);
  if (key) {
    const existing = await deps.bulkOperations.findByOperationId(key);
    if (existing) return sameKind(existing, kind);
  }
  const statuses = bulkStatuses(kind, filter?.statuses);
  const items = filter ? await deps.executions.snapshot({ ...filter, statuses }, deps.maxExecutions + 1) : [];
  checkMatched(items.length, deps.maxExecutions);
  const _id = new ObjectId();
  const empty = items.length === 0;
  const { operation, created } = await deps.bulkOperations.create(
    {
      _id,
      operationId: key ?? `auto:${_id.toHexString()}`,
      kind,
      state: empty ? 'SUCCEEDED' : 'RUNNING',
      reason: null,
      total: items.length,
      position: 0,
      done: 0,
      failed: 0,
      errors: [],
      createdAt: now,
      updatedAt: now,
      finishedAt: empty ? now : null,
    },
    items.map(({ _id, jobId, status, attempt }) => ({ _id, jobId, status, attempt })),
  );
  if (!created) return sameKind(operation, kind);
  // Another tenant's job id (or a deleted job's) stays in the filter of the details, not in a job's history.
  const ofJob = filter?.jobId && (await deps.jobs.findById(filter.jobId)) ? filter.jobId : null;
  await deps.changes.record({
    action: kind === 'RETRY' ? 'RETRY_EXECUTIONS' : 'CANCEL_EXECUTIONS',
    target: { type: 'BULK_OPERATION', id: toGlobalId('BulkOperation', _id) },
    jobId: ofJob,
    before: null,
    after: { kind, state: operation.state, total: operation.total, operationId: operation.operationId },
    details: { filter: filter && { ...filter, jobId: filter.jobId ? toGlobalId('Job', filter.jobId) : null, statuses } },
    at: now,
  });
  if (!empty) deps.runner.wake();
  return operation;
}

/** An existing operation found by its key; the key of an operation of the other kind is a CONFLICT. */
function sameKind(operation: BulkOperationDoc, kind: BulkOperationKind): BulkOperationDoc {
  if (operation.kind !== kind) {
    throw new ConflictError(`operationId ${operation.operationId} names a bulk ${operation.kind} operation already`);
  }
  return operation;
}
