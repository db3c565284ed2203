import type { Clock } from '../clock.js';
import { jobSnapshot, queueEntry, type ExecutionMessage, type JobSnapshot } from '../queue/queueEntry.js';
import type { RunStore } from '../store/runStore.js';
import { endUnstarted, type EndUnstartedDeps, type UnstartedEnd } from '../transitions/endUnstarted.js';
import { admit, type AdmissionDeps, type Lease } from './admission.js';
import { withPayload } from './attemptPayload.js';
import { claimAttempt, type ClaimDeps } from './claimAttempt.js';
import { recordEnd, type EndDeps } from './recordEnd.js';
import { notDueBefore, runOfEntry, type Run } from './run.js';
import { runTarget, type TargetDeps } from './runTarget.js';
import { readRun, takeOverAndRequeue, type TakeoverDeps } from './takeover.js';
import type { Redelivery } from './tenantWait.js';

export type { Redelivery } from './tenantWait.js';

/** What this file uses itself: the job's and the payload's reads, and ending an execution before any attempt. */
type EntryDeps = Omit<EndUnstartedDeps, 'store'> & { runStore: Pick<RunStore, 'findJob' | 'findPayload' | 'endUnstarted'>; clock: Clock };

/** What a delivery needs: the ports of each of its parts, handed in by the composition root. */
export type RunDeps = AdmissionDeps & ClaimDeps & TargetDeps & EndDeps & TakeoverDeps & EntryDeps;

/** How the queue handed the execution out. */
export interface Delivery {
  /** The entry's previous holder is gone (the queue's stalled check, or a takeover entry). */
  takeover: boolean;
  /** The queue entry's id, which a freed tenant slot wakes (default: the execution id). */
  entryId?: string;
}

/** How one try at running a delivery's execution went. */
type Outcome =
  /** Nothing left to do: the attempt ran, or the execution ended unstarted, was held back, or is not this delivery's to run. */
  | { kind: 'done' }
  /** The entry's picture of the execution was stale (the claim missed): read it from MongoDB and try again. */
  | { kind: 'stale' }
  /** The tenant has no slot for it now: the entry comes back later. */
  | { kind: 'wait'; redelivery: Redelivery };

const DONE: Outcome = { kind: 'done' };

/** The reason of an execution a worker finds without its job: deleted while it waited (deleteJob cancels the rest). */
const JOB_DELETED = 'job deleted';

/**
 * Runs one delivery of an execution (docs/architecture.md, "The life of an occurrence", steps 4–6). Usually straight from the queue
 * entry, which says what the execution is waiting as and carries its job: admitted (admission.ts: the
 * tenant's share of this process, its slot and the overlap policy), claimed (claimAttempt.ts: Redis
 * claim, then a group-committed compare-and-set), run under the per-attempt timeout (runTarget.ts),
 * its end group-committed before the delivery is acknowledged (recordEnd.ts). When the entry's picture
 * is stale (the claim misses), when it carries none, or on a takeover, the execution is read from
 * MongoDB (takeover.ts): a finished or cancelled one is dropped, a RUNNING one too unless its previous
 * worker disappeared (then its attempt is recorded CRASHED). Returns when to hand the entry out again, if it waits.
 */
export async function runExecution(
  deps: RunDeps,
  message: ExecutionMessage,
  delivery: Delivery = { takeover: false },
): Promise<Redelivery | null> {
  if (!delivery.takeover && message.run) {
    const outcome = await runWaiting(deps, runOfEntry(message, message.run), true, delivery);
    if (outcome.kind !== 'stale') return outcome.kind === 'wait' ? outcome.redelivery : null;
  }
  const run = await readRun(deps, message.executionId, delivery);
  // Its next attempt is not due yet: the entry comes back then.
  const due = run && notDueBefore(run, deps.clock());
  if (run && due) return { at: due, message: queueEntry(run, due, { kind: 'waiting' }).message };
  const outcome = run ? await runWaiting(deps, run, false, delivery) : DONE;
  return outcome.kind === 'wait' ? outcome.redelivery : null;
}

/** Runs `run` if it still can start; 'stale' when the claim missed on the entry's picture (`fromEntry`). */
async function runWaiting(deps: RunDeps, run: Run, fromEntry: boolean, delivery: Delivery): Promise<Outcome> {
  const job = run.job ?? (await deps.runStore.findJob(run.tenantId, run.jobId).then((found) => found && jobSnapshot(found)));
  if (!job) return endAs(deps, run, { kind: 'cancel', reason: JOB_DELETED });
  const entryId = delivery.entryId ?? run.executionId;
  // A waiting entry gets a fresh picture when this delivery read the execution or the job, so its
  // next try reads neither (a backlog re-enqueued without jobs would read each job every try).
  const admission = await admit(deps, run, job, { refresh: !fromEntry || !run.job, entryId });
  if (admission.kind === 'wait') return admission;
  try {
    if (admission.kind === 'skip') return await endAs(deps, run, { kind: 'skip', reason: admission.reason });
    // BUFFER_ONE: stays QUEUED; the running execution's worker enqueues it when it finishes.
    if (admission.kind === 'hold') return DONE;
    return await runAdmitted(deps, run, job, admission.lease, fromEntry, entryId);
  } finally {
    await admission.lease.release();
  }
}

/** The admitted delivery: the payload its entry left out, the claim, the attempt and its end. */
async function runAdmitted(
  deps: RunDeps,
  waiting: Run,
  entryJob: JobSnapshot,
  lease: Lease,
  fromEntry: boolean,
  entryId: string,
): Promise<Outcome> {
  // Read before the claim: a read that fails (the delivery is retried, as any whose MongoDB read
  // fails; its error is what counts) or finds the job deleted uses up no attempt of the execution.
  const read = waiting.payloadOmitted
    ? await withPayload(deps.runStore, waiting, entryJob).catch(async (error: unknown) => {
        await lease.giveBackQuietly();
        throw error;
      })
    : { run: waiting, job: entryJob };
  if (!read) {
    await lease.giveBack();
    return endAs(deps, waiting, { kind: 'cancel', reason: JOB_DELETED });
  }
  const { run, job } = read;
  const started = await claimAttempt(deps, run, job.timeoutSeconds * 1000, entryId);
  if (!started) {
    if (!fromEntry) return DONE;
    // The entry's picture was stale: give back what this delivery took and read the execution instead.
    await lease.giveBack();
    return { kind: 'stale' };
  }
  lease.attemptStarted();
  try {
    await recordEnd(deps, run, job, started, await runTarget(deps, run, job, started));
    return DONE;
  } catch (error) {
    // MongoDB or Redis failed after the attempt started: record it as lost and queue the next one.
    await takeOverAndRequeue(deps, run, started);
    throw error;
  } finally {
    // Stops a start write that has not gone out (the attempt is over, however it ended).
    await started.claim.settle();
  }
}

/** Ends `run` before any attempt (transitions/endUnstarted.ts). */
async function endAs(deps: RunDeps, run: Run, end: UnstartedEnd): Promise<Outcome> {
  await endUnstarted({ ...deps, store: deps.runStore }, { run, end }, deps.clock());
  return DONE;
}
