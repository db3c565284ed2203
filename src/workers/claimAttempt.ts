import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { KairosMetrics } from '../metrics/kairosMetrics.js';
import type { AttemptClaims } from '../queue/attemptClaims.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';
import type { RunStore } from '../store/runStore.js';
import { startAttempt } from '../transitions/startAttempt.js';
import type { StatusPublisher } from '../transitions/statusEvents.js';
import type { DeferredClaim, DeferredClaims } from './deferredClaims.js';
import { END_RETRY_MS } from './recordEnd.js';
import type { Run } from './run.js';

export interface ClaimDeps {
  /** The attempt claims in Redis: exclusive, and the record of a start until MongoDB has it. */
  claims: Pick<AttemptClaims, 'take' | 'drop'>;
  /** Writes attempts' starts to MongoDB once they have run for a while (deferredClaims.ts). */
  starts: Pick<DeferredClaims, 'start'>;
  queues: Pick<ExecutionQueues, 'leftWaiting'>;
  events: StatusPublisher;
  /** Notes a job's first attempts as its lastRunAt. */
  runStore: Pick<RunStore, 'noteJobRun'>;
  metrics: Pick<KairosMetrics, 'attemptStarted'>;
  clock: Clock;
  logger: Logger;
  workerId: string;
  /** The queue lock (visibility timeout), part of a running attempt's deadline. */
  queueLockMs: number;
}

/** An attempt this delivery claimed, and its start on its way to MongoDB. */
export interface Started {
  number: number;
  startedAt: Date;
  claim: DeferredClaim;
}

/**
 * Claims the attempt after `run.attempt`, whose target times out after `timeoutMs`: the Redis claim
 * (exclusive, and the record of the start until MongoDB has it), then the start's compare-and-set,
 * deferred (deferredClaims.ts, transitions/startAttempt.ts). Null when another delivery has the
 * claim, or when a compare-and-set made at once missed (the execution changed): the claim taken is then given back.
 */
export async function claimAttempt(deps: ClaimDeps, run: Run, timeoutMs: number, entryId: string): Promise<Started | null> {
  const number = run.attempt + 1;
  const startedAt = deps.clock();
  // Outlives the attempt (aborted at its timeout), its end's retries while MongoDB is down, and a
  // takeover's look for a dead holder (the lock lapses, then the stalled check sees it).
  const claimTtlMs = timeoutMs + END_RETRY_MS + 2 * deps.queueLockMs + 30_000;
  const deadlineAfterMs = timeoutMs + deps.queueLockMs;
  const holder = { workerId: deps.workerId, startedAt, deadlineAt: new Date(startedAt.getTime() + deadlineAfterMs) };
  if (!(await deps.claims.take(run.executionId, number, holder, claimTtlMs))) return null;
  let started: { claim: DeferredClaim } | null;
  // Only the start's write can throw here: what follows it in startAttempt (leaving the waiting
  // index, publishing) logs its own failures, so a claim is never dropped once its start is on its way.
  try {
    started = await startAttempt(deps, { run, entryId, workerId: deps.workerId, deadlineAfterMs }, startedAt);
    if (!started) await deps.claims.drop(run.executionId, number);
  } catch (error) {
    // Let a redelivery try again instead of finding the claim taken.
    await deps.claims.drop(run.executionId, number).catch(() => undefined);
    throw error;
  }
  if (!started) return null;
  if (number === 1) deps.runStore.noteJobRun(run.tenantId, run.jobId, startedAt);
  // A backfilled execution is due at a past occurrence by design: its lag behind that instant says
  // nothing about the workers, and would set off the start-lag alert for as long as a backfill runs.
  if (number === 1 && run.trigger !== 'BACKFILL') {
    deps.metrics.attemptStarted(startedAt.getTime() - run.scheduledFor.getTime(), run.trigger, run.workload, run.tenantId);
  }
  return { number, startedAt, claim: started.claim };
}
