import { ObjectId } from 'mongodb';
import type { Clock } from '../clock.js';
import { errorMessage, type Logger } from '../logger.js';
import type { UnwrittenHolder } from '../domain/attemptEnd.js';
import type { ExecutionDoc } from '../domain/execution.js';
import { pastDeadline, type AttemptClaims, type ClaimHolder } from '../queue/attemptClaims.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';
import { queueEntry } from '../queue/queueEntry.js';
import type { RunStore } from '../store/runStore.js';
import { crashAttempt, type CrashAttemptDeps } from '../transitions/crashAttempt.js';
import type { StatusPublisher } from '../transitions/statusEvents.js';
import { attemptLogger } from './attemptLogger.js';
import type { Started } from './claimAttempt.js';
import { releaseJobSlot, type OverlapGuard } from './overlapGuard.js';
import type { Run } from './run.js';

export interface TakeoverDeps {
  runStore: Pick<RunStore, 'findRunnable' | 'recordCrash'>;
  /** Who holds an attempt's claim, and the one takeover of a lost attempt. */
  claims: Pick<AttemptClaims, 'holder' | 'takeTakeover'>;
  /** Frees the job's slot an attempt lost for good held. */
  overlap: Pick<OverlapGuard, 'release'>;
  /** Queues the next attempt after a lost one, and the execution BUFFER_ONE held back. */
  queues: Pick<ExecutionQueues, 'enqueue'>;
  events: StatusPublisher;
  /** Records takeovers. */
  metrics: CrashAttemptDeps['metrics'];
  clock: Clock;
  logger: Logger;
  workerId: string;
}

/**
 * The execution as MongoDB has it, when it can start (after recording a lost attempt on a
 * takeover); null = drop the delivery: finished, cancelled, or RUNNING on a worker that is not gone.
 */
export async function readRun(deps: TakeoverDeps, executionId: string, delivery: { takeover: boolean }): Promise<Run | null> {
  const found = await deps.runStore.findRunnable(new ObjectId(executionId));
  if (!found) return null;
  // RUNNING elsewhere: a duplicate delivery is dropped; a takeover (the queue's stalled check found
  // its lock lapsed, or reconcile found it past its deadline) means the worker running it is gone.
  if (found.status === 'RUNNING' && !delivery.takeover) return null;
  // A waiting execution may have lost an attempt too: one whose start was only in its Redis claim.
  const lost = found.status === 'RUNNING' ? { unwritten: null } : await unwrittenLost(deps, found, delivery.takeover);
  if (!lost) return { ...found, executionId, job: null };
  if (!(await deps.claims.takeTakeover(executionId, found.attempt + (lost.unwritten ? 1 : 0)))) return null;
  const current = await takeOver(deps, found, lost.unwritten);
  if (!current) {
    // Taken over as FAILED (no attempt left): free the slot the lost attempt held.
    await releaseJobSlot(deps, found, found.jobId.toHexString(), executionId);
    return null;
  }
  return { ...current, executionId, job: null };
}

/**
 * The attempt after `waiting`'s last, when a worker that is gone claimed it without its start or end
 * reaching MongoDB: on a takeover (the entry's lock lapsed), or once the claim is past its deadline
 * (as reconcile judges a RUNNING one), so a claim left behind never blocks the execution for its whole TTL.
 */
async function unwrittenLost(deps: TakeoverDeps, waiting: ExecutionDoc, takeover: boolean): Promise<{ unwritten: ClaimHolder } | null> {
  const holder = await deps.claims.holder(waiting._id.toHexString(), waiting.attempt + 1);
  return holder && (takeover || pastDeadline(holder, deps.clock())) ? { unwritten: holder } : null;
}

/**
 * This delivery's own attempt is lost (MongoDB or Redis failed after it started): records it CRASHED
 * and queues the next one, so the execution does not stay RUNNING. If this fails too, the queue's
 * stalled check takes it over.
 */
export async function takeOverAndRequeue(deps: TakeoverDeps, run: Run, started: Started): Promise<void> {
  try {
    const written = await started.claim.settle();
    if (!(await deps.claims.takeTakeover(run.executionId, started.number))) return;
    const current = await deps.runStore.findRunnable(run._id);
    if (!current || current.attempt !== (written ? started.number : started.number - 1) || (current.status === 'RUNNING') !== written)
      return;
    const after = await takeOver(deps, current, written ? null : { workerId: deps.workerId, startedAt: started.startedAt });
    if (after) await deps.queues.enqueue([queueEntry(after, deps.clock())]);
  } catch (error) {
    attemptLogger(deps.logger, run.tenantId, run.jobId, run.executionId).warn(
      'could not record a failed attempt; the queue will hand it out again',
      { error: errorMessage(error) },
    );
  }
}

/**
 * Records a lost attempt as CRASHED (transitions/crashAttempt.ts): `current`'s RUNNING one, or the
 * one whose start only its Redis claim held (`unwritten`). Returns the execution ready for its next
 * attempt, or null if none is left.
 */
async function takeOver(deps: TakeoverDeps, current: ExecutionDoc, unwritten: UnwrittenHolder | null): Promise<ExecutionDoc | null> {
  const crashed = await crashAttempt({ ...deps, store: deps.runStore }, { current, unwritten }, deps.clock());
  if (!crashed) return null;
  attemptLogger(deps.logger, current.tenantId, current.jobId, current._id).warn('took over an execution whose worker disappeared', {
    attempt: crashed.after.attempt,
  });
  return crashed.after.status === 'RETRYING' ? crashed.after : null;
}
