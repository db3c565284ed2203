import type { ObjectId } from 'mongodb';
import type { ExecutionDoc } from '../domain/execution.js';
import { FINAL_STATUSES } from '../domain/execution.js';
import { ConflictError, NotFoundError } from '../errors/index.js';
import type { CancelSignals } from '../events/cancelSignals.js';
import { pastDeadline, type AttemptClaims } from '../queue/attemptClaims.js';
import { toGlobalId } from '../ids/globalId.js';
import { PENDING, cancelWaiting } from '../transitions/cancelWaiting.js';
import type { JobDeps } from '../jobs/jobDeps.js';

export const USER_CANCEL_REASON = 'cancelled by a user';

/** What a cancel needs: the tenant's executions, the queue, the events, the workers' signals and claims. */
export type CancelDeps = Pick<JobDeps, 'executions' | 'queues' | 'events' | 'logger'> & {
  cancels: CancelSignals;
  claims: Pick<AttemptClaims, 'holder'>;
};

/**
 * Cancels an execution: a pending one (SCHEDULED, QUEUED, RETRYING) ends CANCELLED at once and
 * leaves the queue; a RUNNING one, or a waiting one whose attempt already runs with its start not yet
 * written (a live Redis attempt claim: the deferred claim), is signalled through Redis to whichever
 * worker runs it, which aborts the attempt and ends it CANCELLED with the attempt on record (the
 * returned execution may still say RUNNING or QUEUED). A finished one is a CONFLICT. Recorded in the
 * change history (cancelCurrent, which a bulk cancel calls per item, is not: the bulk operation is).
 */
export async function cancelExecution(deps: CancelDeps & Pick<JobDeps, 'changes'>, id: ObjectId, now: Date): Promise<ExecutionDoc> {
  const current = await deps.executions.findById(id);
  if (!current) throw new NotFoundError('Execution', toGlobalId('Execution', id));
  const after = await cancelCurrent(deps, current, now);
  // A running attempt is only signalled here: its status may still be RUNNING, and the record then lists no field.
  await deps.changes.record({
    action: 'CANCEL_EXECUTION',
    target: { type: 'EXECUTION', id: toGlobalId('Execution', id) },
    jobId: current.jobId,
    before: { status: current.status },
    after: { status: after.status },
    at: now,
  });
  return after;
}

/** cancelExecution of an execution already read (`current`): a bulk cancel reads each of its items once. */
export async function cancelCurrent(deps: CancelDeps, current: ExecutionDoc, now: Date): Promise<ExecutionDoc> {
  const id = current._id;
  if (FINAL_STATUSES.includes(current.status)) {
    throw new ConflictError(`Execution ${toGlobalId('Execution', id)} has already ended (${current.status})`);
  }
  if (current.status !== 'RUNNING' && !(await attemptRunning(deps.claims, current, now))) {
    await cancelWaiting(
      { ...deps, store: deps.executions },
      { jobId: current.jobId, executionIds: [id], statuses: PENDING },
      USER_CANCEL_REASON,
      now,
    );
  }
  // Running, or claimed by a worker between the reads and the cancel: abort the attempt where it
  // runs; if it had already started, its end adds it to the cancelled execution.
  await deps.cancels.cancel(id.toHexString(), USER_CANCEL_REASON);
  return (await deps.executions.findById(id)) ?? current;
}

/** Whether a waiting execution's next attempt runs already: its Redis claim is held and not past its deadline. */
async function attemptRunning(claims: Pick<AttemptClaims, 'holder'>, waiting: ExecutionDoc, now: Date): Promise<boolean> {
  const holder = await claims.holder(waiting._id.toHexString(), waiting.attempt + 1);
  return holder !== null && !pastDeadline(holder, now);
}
