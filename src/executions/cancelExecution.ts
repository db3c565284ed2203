import type { ObjectId } from 'mongodb';
import type { ExecutionDoc } from '../domain/execution.js';
import { FINAL_STATUSES } from '../domain/execution.js';
import { ConflictError, NotFoundError } from '../errors/index.js';
import type { CancelSignals } from '../events/cancelSignals.js';
import { toGlobalId } from '../ids/globalId.js';
import { cancelPendingExecutions } from '../jobs/cancelPendingExecutions.js';
import type { JobDeps } from '../jobs/jobDeps.js';

export const USER_CANCEL_REASON = 'cancelled by a user';

/**
 * Cancels an execution: a pending one (SCHEDULED, QUEUED, RETRYING) ends CANCELLED at once and
 * leaves the queue (an attempt already running unrecorded is aborted and added to it); a RUNNING one is signalled through Redis to whichever worker runs it, which
 * aborts the attempt and ends it CANCELLED (the returned execution may still say RUNNING). A
 * finished one is a CONFLICT.
 */
export async function cancelExecution(
  deps: Pick<JobDeps, 'executions' | 'queues' | 'events' | 'logger'> & { cancels: CancelSignals },
  id: ObjectId,
  now: Date,
): Promise<ExecutionDoc> {
  const current = await deps.executions.findById(id);
  if (!current) throw new NotFoundError('Execution', toGlobalId('Execution', id));
  if (FINAL_STATUSES.includes(current.status)) {
    throw new ConflictError(`Execution ${toGlobalId('Execution', id)} has already ended (${current.status})`);
  }
  if (current.status !== 'RUNNING') {
    await cancelPendingExecutions(
      deps,
      current.jobId,
      { statuses: ['SCHEDULED', 'QUEUED', 'RETRYING'], executionId: id },
      USER_CANCEL_REASON,
      now,
    );
  }
  // Running (its start may not be written yet: the deferred claim), or claimed by a worker between
  // the read and the cancel: abort the attempt where it runs; it is recorded on the execution as it ends.
  await deps.cancels.cancel(id.toHexString(), USER_CANCEL_REASON);
  return (await deps.executions.findById(id)) ?? current;
}
