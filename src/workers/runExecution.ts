import { ObjectId } from 'mongodb';
import type { AttemptEnd, ExecutionDoc, ExecutionStatus, ExecutionTrigger } from '../domain/execution.js';
import type { KairosMetrics } from '../metrics/kairosMetrics.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { errorMessage } from '../logger.js';
import type { ExecutionEventBus } from '../events/executionEventBus.js';
import { publishStatusEvents, statusEvent, withAttemptEnd } from '../transitions/statusEvents.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';
import { bufferedEntry, jobSnapshot, queueEntry, type ExecutionMessage, type JobSnapshot } from '../queue/queueEntry.js';
import type { RunStore } from '../store/runStore.js';
import type { TenantStore } from '../store/tenantStore.js';
import { toGlobalId } from '../ids/globalId.js';
import { executionLogFields, jobLogFields } from '../ids/logFields.js';
import type { HandlerRegistry } from './handlers/handler.js';
import { callHttpTarget } from './targets/httpTarget.js';
import { isNonRetryable, UnusableTargetError } from './targets/targetAgent.js';
import { CancelledError, ShutdownError, type CancelSignals } from '../events/cancelSignals.js';
import type { OverlapDecision, OverlapGuard } from './overlapGuard.js';
import { pastDeadline, type AttemptClaims, type ClaimHolder } from '../queue/attemptClaims.js';
import type { DeferredClaim, DeferredClaims } from './deferredClaims.js';
import type { ConcurrencyLimiter } from '../quotas/concurrencyLimiter.js';
import type { TenantShare } from './tenantShare.js';
import type { Dispatcher } from 'undici';
import type { ChildProcessRunner } from './cpu/childProcessRunner.js';
import { retryWhileMongoDown } from './retryWhileMongoDown.js';
import { decideAttemptEnd, type AttemptEndDecision, type AttemptResult } from './attemptEnd.js';
import { SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE, ATTR_HTTP_RESPONSE_STATUS_CODE } from '@opentelemetry/semantic-conventions';
import { inSpan } from '../tracing/inSpan.js';
import { SPAN_ATTRIBUTES as A } from '../tracing/spanAttributes.js';
import { traceparent } from '../tracing/traceparent.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { waitForTenantSlot, type Redelivery, type TenantWait } from './tenantWait.js';
import { withPayload } from './attemptPayload.js';
import { releaseTenantSlot, waiterOf } from './wakeWaiter.js';

export interface RunDeps {
  runStore: RunStore;
  tenants: TenantStore;
  queues: ExecutionQueues;
  events: ExecutionEventBus;
  handlers: HandlerRegistry;
  /** Runs CPU_BOUND handler attempts in child processes. */
  cpu: ChildProcessRunner;
  clock: Clock;
  logger: Logger;
  workerId: string;
  random: () => number;
  overlap: OverlapGuard;
  cancels: CancelSignals;
  claims: AttemptClaims;
  /** Writes attempts' starts to MongoDB once they have run for a while (deferredClaims.ts). */
  starts: DeferredClaims;
  /** The tenants' running slots (maxConcurrentExecutions). */
  tenantSlots: ConcurrencyLimiter;
  /** Each tenant's share of this process's slots. */
  tenantShare: TenantShare;
  /** The queue lock (visibility timeout), part of a running attempt's deadline. */
  queueLockMs: number;
  /** How HTTP targets are reached: the guarded connection pool and whether private addresses are allowed. */
  http: { dispatcher: Dispatcher; allowPrivate: boolean };
  /** Records attempts, start lag, retries, takeovers and finished executions. */
  metrics: KairosMetrics;
  /** A span per attempt (the no-op tracer when tracing is off). */
  tracer: Tracer;
}

class AttemptTimeout extends Error {}

/** How long CANCEL_PREVIOUS waits for the cancelled execution to give up the job's slot before taking it anyway. */
const CANCEL_PREVIOUS_WAIT_MS = 15_000;
const CANCEL_PREVIOUS_POLL_MS = 50;

/** The reason of an execution a worker finds without its job: deleted while it waited (deleteJob cancels the rest). */
const JOB_DELETED = 'job deleted';

/** How long a finished attempt's end is retried while MongoDB is unreachable. */
const END_RETRY_MS = 120_000;

/** A waiting execution about to be run: as its queue entry described it, or as read from MongoDB. */
interface Run {
  _id: ObjectId;
  executionId: string;
  tenantId: string;
  jobId: ObjectId;
  workload: ExecutionDoc['workload'];
  /** The status and attempts started the claim expects. */
  status: ExecutionStatus;
  attempt: number;
  maxAttempts: number;
  scheduledFor: Date;
  payloadJson: string | null;
  /** Where the payload its entry left out is (queueEntry.ts), read just before the attempt is claimed (attemptPayload.ts). */
  payloadOmitted?: 'execution' | 'job';
  /** The job as the entry carried it; null = read it. */
  job: JobSnapshot | null;
  /** For metrics; unknown on entries made before queue entries carried it. */
  trigger?: ExecutionTrigger;
}

/** An attempt this delivery claimed, and its start on its way to MongoDB. */
interface Started {
  number: number;
  startedAt: Date;
  claim: DeferredClaim;
}

/**
 * Runs one delivery of an execution (docs/architecture.md, steps 4–6). Usually straight from the queue
 * entry, which says what the execution is waiting as and carries its job: the tenant's share of this
 * process, its slot and the overlap policy are applied, the attempt is claimed (Redis claim, then a group-committed
 * compare-and-set), the target runs under the per-attempt timeout and the end is group-committed
 * as SUCCEEDED, RETRYING (re-enqueued after backoff), FAILED or CANCELLED before the delivery is
 * acknowledged. When the entry's picture is stale (the claim misses), when it carries none, or
 * on a takeover, the execution is read from MongoDB: a finished or cancelled one is dropped, a
 * RUNNING one too unless its previous worker disappeared (then its attempt is recorded CRASHED).
 */
export async function runExecution(
  deps: RunDeps,
  message: ExecutionMessage,
  delivery: Delivery = { takeover: false },
): Promise<Redelivery | null> {
  if (!delivery.takeover && message.run) {
    const run: Run = {
      _id: new ObjectId(message.executionId),
      executionId: message.executionId,
      tenantId: message.tenantId,
      jobId: new ObjectId(message.run.jobId),
      workload: message.run.workload,
      status: message.run.status,
      attempt: message.run.attempt,
      maxAttempts: message.run.maxAttempts,
      scheduledFor: new Date(message.run.scheduledFor),
      payloadJson: message.run.payloadJson,
      payloadOmitted: message.run.payloadOmitted,
      job: message.job ?? null,
      trigger: message.run.trigger,
    };
    const outcome = await runWaiting(deps, run, true, delivery);
    if (outcome !== 'stale') return outcome === 'done' ? null : outcome;
  }
  const run = await readRun(deps, message.executionId, delivery);
  const outcome = run ? await runWaiting(deps, run, false, delivery) : 'done';
  return outcome === 'done' || outcome === 'stale' ? null : outcome;
}

/** How the queue handed the execution out. */
export interface Delivery {
  /** The entry's previous holder is gone (the queue's stalled check, or a takeover entry). */
  takeover: boolean;
  /** The queue entry's id, which a freed tenant slot wakes (default: the execution id). */
  entryId?: string;
}

export type { Redelivery } from './tenantWait.js';

/** The execution as MongoDB has it, when it can start (after recording a lost attempt on a takeover); null = drop the delivery. */
async function readRun(deps: RunDeps, executionId: string, delivery: { takeover: boolean }): Promise<Run | null> {
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
    await releaseSlot(deps, found, found.jobId.toHexString(), executionId);
    return null;
  }
  return { ...current, executionId, job: null };
}

/**
 * The attempt after `waiting`'s last, when a worker that is gone claimed it without its start or end
 * reaching MongoDB: on a takeover (the entry's lock lapsed), or once the claim is past its deadline
 * (as reconcile judges a RUNNING one), so a claim left behind never blocks the execution for its whole TTL.
 */
async function unwrittenLost(deps: RunDeps, waiting: ExecutionDoc, takeover: boolean): Promise<{ unwritten: ClaimHolder } | null> {
  const holder = await deps.claims.holder(waiting._id.toHexString(), waiting.attempt + 1);
  return holder && (takeover || pastDeadline(holder, deps.clock())) ? { unwritten: holder } : null;
}

/** Runs `run` if it still can start; 'stale' when the claim missed on the entry's picture (`fromEntry`). */
async function runWaiting(deps: RunDeps, run: Run, fromEntry: boolean, delivery: Delivery): Promise<'done' | 'stale' | Redelivery> {
  let job = run.job;
  if (!job) {
    const found = await deps.runStore.findJob(run.tenantId, run.jobId);
    if (!found) {
      await endUnstarted(deps, run, 'CANCELLED', JOB_DELETED);
      return 'done';
    }
    job = jobSnapshot(found);
  }
  // A waiting entry gets a fresh picture when this delivery read the execution or the job, so its
  // next try reads neither (a backlog re-enqueued without jobs would read each job every try).
  const wait = {
    refresh: !fromEntry || !run.job,
    waiting: 0,
    limit: 1,
    waiter: waiterOf(run.workload, delivery.entryId ?? run.executionId),
    entryId: delivery.entryId ?? run.executionId,
  };
  // This process's share first (no round trip): a tenant that has it waits as one at its quota does.
  const releaseShare = deps.tenantShare.take(run.tenantId, run.workload);
  if (!releaseShare) return waitForTenantSlot(deps, run, job, wait);
  try {
    return await runWithinShare(deps, run, job, fromEntry, wait);
  } finally {
    releaseShare();
  }
}

/** runWaiting within the tenant's share of this process: the tenant's slot, the overlap policy, the attempt. */
async function runWithinShare(
  deps: RunDeps,
  run: Run,
  job: JobSnapshot,
  fromEntry: boolean,
  wait: TenantWait,
): Promise<'done' | 'stale' | Redelivery> {
  const { executionId } = run;
  const jobId = run.jobId.toHexString();
  const slotTtlMs = job.timeoutSeconds * 1000 + 30_000;
  const { slot: tenantSlot, waiting, limit } = await deps.tenantSlots.take(run.tenantId, executionId, slotTtlMs, wait.waiter);
  if (tenantSlot === 'full') {
    deps.metrics.quotaRefused('concurrency', run.tenantId);
    return waitForTenantSlot(deps, run, job, { ...wait, waiting, limit });
  }
  let decision = await deps.overlap.decide(job.overlapPolicy, jobId, executionId, slotTtlMs);
  if (decision.action === 'cancel-previous') {
    decision = await cancelPrevious(deps, decision.runningId, jobId, executionId, slotTtlMs);
  }
  if (decision.action !== 'run' && tenantSlot === 'new') await releaseTenantSlot(deps, run.tenantId, executionId);
  if (decision.action === 'skip') {
    await endUnstarted(deps, run, 'SKIPPED', decision.reason);
    return 'done';
  }
  // BUFFER_ONE: stays QUEUED; the running execution's worker enqueues it when it finishes.
  if (decision.action === 'hold') return 'done';

  let started: Started | null = null;
  let elsewhere: boolean | null = null;
  // Gives back the job's slot this delivery took without starting the attempt, unless a delivery
  // running the execution holds it (the slots are keyed by execution); whether one does decides the
  // tenant slot's release below. Unsure (MongoDB unreachable), it keeps them: the execution's
  // redelivery takes them as its own.
  const giveBackUnstarted = async (): Promise<boolean> => {
    const held = await runningElsewhere(deps, executionId).catch(() => true);
    if (!held && job.overlapPolicy !== 'ALLOW') await releaseSlot(deps, run, jobId, executionId);
    return held;
  };
  try {
    if (run.payloadOmitted) {
      // Read before the claim: a read that fails (the delivery is retried, as any whose MongoDB read
      // fails) or finds the job deleted uses up no attempt of the execution.
      const read = await withPayload(deps.runStore, run, job).catch(async (error: unknown) => {
        // The read's error is what counts (workerRole puts the entry back when MongoDB is unreachable).
        elsewhere = await giveBackUnstarted().catch(() => true);
        throw error;
      });
      if (!read) {
        elsewhere = await giveBackUnstarted();
        await endUnstarted(deps, run, 'CANCELLED', JOB_DELETED);
        return 'done';
      }
      ({ run, job } = read);
    }
    started = await startAttempt(deps, run, job.timeoutSeconds * 1000);
    if (!started) {
      if (!fromEntry) return 'done';
      // The entry's picture was stale: give back what this delivery took and read the execution instead.
      elsewhere = await giveBackUnstarted();
      return 'stale';
    }
    // Running, so no longer one of the tenant's waiting executions (maxWaitingExecutions).
    deps.queues.leftWaiting(run.workload, run.tenantId, wait.entryId);
    await publishStatusEvents(deps.events, deps.logger, [
      statusEvent(run, run.status, 'RUNNING', started.startedAt, { number: started.number, workerId: deps.workerId }),
    ]);
    if (started.number === 1) deps.runStore.noteJobRun(run.tenantId, run.jobId, started.startedAt);
    if (started.number === 1)
      deps.metrics.attemptStarted(started.startedAt.getTime() - run.scheduledFor.getTime(), run.trigger, run.workload, run.tenantId);
    await finish(deps, run, job, started, await tracedAttempt(deps, run, job, started));
    return 'done';
  } catch (error) {
    // MongoDB or Redis failed after the attempt started: record it as lost and queue the next one,
    // so the execution does not stay RUNNING (if this fails too, the stalled check takes it over).
    if (started) await takeOverAndRequeue(deps, run, started);
    throw error;
  } finally {
    // Stops a start write that has not gone out (the attempt is over, however it ended).
    if (started) await started.claim.settle();
    // Only a delivery that started the attempt owns the slot; a duplicate that lost the claim must not free it.
    if (started && job.overlapPolicy !== 'ALLOW') await releaseSlot(deps, run, jobId, executionId);
    // The tenant slot is keyed by execution: a duplicate that took it as new but lost the claim to a
    // delivery now running must leave it to that one (which found it held and releases it when done).
    if (started || (tenantSlot === 'new' && !(elsewhere ?? (await runningElsewhere(deps, executionId).catch(() => true))))) {
      await releaseTenantSlot(deps, run.tenantId, executionId);
    }
  }
}

async function runningElsewhere(deps: RunDeps, executionId: string): Promise<boolean> {
  return (await deps.runStore.findRunnable(new ObjectId(executionId)))?.status === 'RUNNING';
}

/**
 * Claims the attempt: the Redis claim (exclusive, and the record of the start until MongoDB has it),
 * then the MongoDB compare-and-set, deferred (deferredClaims.ts); null when another delivery has the
 * claim, or when a compare-and-set made at once missed (the execution changed).
 */
async function startAttempt(deps: RunDeps, run: Run, timeoutMs: number): Promise<Started | null> {
  const number = run.attempt + 1;
  const startedAt = deps.clock();
  // Outlives the attempt (aborted at its timeout), its end's retries while MongoDB is down, and a
  // takeover's look for a dead holder (the lock lapses, then the stalled check sees it).
  const claimTtlMs = timeoutMs + END_RETRY_MS + 2 * deps.queueLockMs + 30_000;
  const deadlineAfterMs = timeoutMs + deps.queueLockMs;
  const holder = { workerId: deps.workerId, startedAt, deadlineAt: new Date(startedAt.getTime() + deadlineAfterMs) };
  if (!(await deps.claims.take(run.executionId, number, holder, claimTtlMs))) return null;
  try {
    const claim = await deps.starts.start({
      id: run._id,
      from: { status: run.status, attempt: run.attempt },
      workerId: deps.workerId,
      startedAt,
      deadlineAfterMs,
    });
    if (!claim) await deps.claims.drop(run.executionId, number);
    return claim ? { number, startedAt, claim } : null;
  } catch (error) {
    // Let a redelivery try again instead of finding the claim taken.
    await deps.claims.drop(run.executionId, number).catch(() => undefined);
    throw error;
  }
}

async function takeOverAndRequeue(deps: RunDeps, run: Run, started: Started): Promise<void> {
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
 * Records a lost attempt as CRASHED: `current`'s RUNNING one, or the one whose start only its Redis
 * claim held (`unwritten`). Returns the execution ready for its next attempt, or null if none is left.
 */
async function takeOver(
  deps: RunDeps,
  current: ExecutionDoc,
  unwritten: Pick<ClaimHolder, 'workerId' | 'startedAt'> | null,
): Promise<ExecutionDoc | null> {
  const now = deps.clock();
  const after = await deps.runStore.recordCrash(current, now, unwritten);
  if (!after) return null;
  const startedAt = unwritten?.startedAt ?? current.attempts.find((a) => a.number === current.attempt)?.startedAt;
  recordCrashed(deps.metrics, current, after, startedAt ? now.getTime() - startedAt.getTime() : null);
  await publishStatusEvents(deps.events, deps.logger, [statusEvent(after, 'RUNNING', after.status, now)]);
  attemptLogger(deps.logger, current.tenantId, current.jobId, current._id).warn('took over an execution whose worker disappeared', {
    attempt: after.attempt,
  });
  return after.status === 'RETRYING' ? after : null;
}

/** Cancels the running execution and waits for its slot; takes the slot anyway after a while (its worker may be gone). */
async function cancelPrevious(
  deps: RunDeps,
  runningId: string,
  jobId: string,
  executionId: string,
  slotTtlMs: number,
): Promise<OverlapDecision> {
  await deps.cancels.cancel(runningId, `cancelled by a newer execution (overlap policy CANCEL_PREVIOUS)`);
  // Counted in polls, not read from a clock: a fixed test clock must not make this wait forever.
  for (let waitedMs = 0; waitedMs < CANCEL_PREVIOUS_WAIT_MS; waitedMs += CANCEL_PREVIOUS_POLL_MS) {
    const decision = await deps.overlap.decide('SKIP', jobId, executionId, slotTtlMs);
    if (decision.action === 'run') return decision;
    await sleep(CANCEL_PREVIOUS_POLL_MS);
  }
  await deps.overlap.release(jobId, runningId);
  return deps.overlap.decide('SKIP', jobId, executionId, slotTtlMs);
}

async function releaseSlot(
  deps: RunDeps,
  execution: Pick<ExecutionDoc, 'tenantId' | 'workload'>,
  jobId: string,
  executionId: string,
): Promise<void> {
  const buffered = await deps.overlap.release(jobId, executionId);
  if (buffered) await deps.queues.enqueue([bufferedEntry(buffered, execution.tenantId, execution.workload, deps.clock())]);
}

async function endUnstarted(deps: RunDeps, run: Run, status: 'SKIPPED' | 'CANCELLED', reason: string): Promise<void> {
  const now = deps.clock();
  if (await deps.runStore.endUnstarted(run, status, reason, now)) {
    deps.metrics.executionFinished(status, run.trigger, run.tenantId);
    await publishStatusEvents(deps.events, deps.logger, [statusEvent(run, run.status, status, now)]);
  }
}

/**
 * The attempt inside its span. An HTTP target gets the span as its `traceparent`, so the receiver's
 * trace joins the scheduler's; failed, timed-out and crashed attempts mark the span as an error.
 */
async function tracedAttempt(deps: RunDeps, run: Run, job: JobSnapshot, started: Started): Promise<AttemptResult> {
  const { number } = started;
  const attributes = {
    [A.executionId]: toGlobalId('Execution', run._id),
    [A.jobId]: toGlobalId('Job', run.jobId),
    [A.tenantId]: run.tenantId,
    [A.attempt]: number,
    [A.workload]: run.workload,
    [A.targetKind]: job.target.kind,
    ...(run.trigger ? { [A.trigger]: run.trigger } : {}),
  };
  return inSpan(deps.tracer, 'execution.attempt', { attributes }, async (span) => {
    const result = await attempt(deps, run, job, started, traceparent(span.spanContext()));
    span.setAttribute(A.outcome, result.outcome);
    if (result.httpStatus !== null) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, result.httpStatus);
    if (result.outcome === 'FAILED' || result.outcome === 'TIMED_OUT' || result.outcome === 'CRASHED') {
      span.setAttribute(ATTR_ERROR_TYPE, result.outcome);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    return result;
  });
}

/** Runs the target once under the job's timeout; cancel and shutdown signals abort it. */
async function attempt(
  deps: RunDeps,
  run: Run,
  job: JobSnapshot,
  started: Started,
  traceparentHeader: string | null,
): Promise<AttemptResult> {
  const { number } = started;
  const controller = new AbortController();
  // The start's write found the execution changed (cancelled while waiting, or taken over): it is no longer this attempt's.
  started.claim.onMissed(() => controller.abort(new CancelledError('the execution changed while this attempt was starting')));
  const timer = setTimeout(
    () => controller.abort(new AttemptTimeout(`Timed out after ${job.timeoutSeconds} s`)),
    job.timeoutSeconds * 1000,
  );
  const untrack = deps.cancels.track(run.executionId, controller);
  const payloadJson = run.payloadJson ?? job.payloadJson;
  try {
    if (job.target.kind === 'HTTP') {
      const tenant = await deps.tenants.ensure(run.tenantId, deps.clock());
      const response = await callHttpTarget({
        ...job.target,
        payloadJson,
        executionId: toGlobalId('Execution', run._id),
        jobId: toGlobalId('Job', run.jobId),
        attempt: number,
        scheduledFor: run.scheduledFor,
        secret: tenant.webhookSecret,
        signal: controller.signal,
        now: deps.clock(),
        dispatcher: deps.http.dispatcher,
        allowPrivate: deps.http.allowPrivate,
        traceparent: traceparentHeader,
      });
      return {
        outcome: response.ok ? 'SUCCEEDED' : 'FAILED',
        error: response.ok ? null : `HTTP ${response.status}`,
        httpStatus: response.status,
        resultJson: JSON.stringify(response.result),
      };
    }
    const context = {
      payload: payloadJson === null ? null : (JSON.parse(payloadJson) as unknown),
      executionId: toGlobalId('Execution', run._id),
      attempt: number,
      signal: controller.signal,
    };
    let value: unknown;
    if (job.workload === 'CPU_BOUND') value = await deps.cpu.run(job.target.handler, context);
    else {
      const handler = deps.handlers.get(job.target.handler);
      if (!handler) throw new Error(`No handler named "${job.target.handler}" is registered in this worker`);
      value = await handler(context);
    }
    return { outcome: 'SUCCEEDED', error: null, httpStatus: null, resultJson: value === undefined ? null : JSON.stringify(value) };
  } catch (error) {
    const reason: unknown = controller.signal.reason;
    if (reason instanceof CancelledError) {
      await deps.cancels.clear(run.executionId).catch(() => undefined);
      return { outcome: 'CANCELLED', error: reason.message, httpStatus: null, resultJson: null };
    }
    if (reason instanceof ShutdownError) return { outcome: 'CRASHED', error: reason.message, httpStatus: null, resultJson: null };
    const timedOut = reason instanceof AttemptTimeout;
    // The attempt records only the neutral message; what the host resolved to, or the lookup's error, is for operators.
    if (error instanceof UnusableTargetError)
      attemptLogger(deps.logger, run.tenantId, run.jobId, run.executionId).warn(error.logLine.msg, {
        attempt: number,
        ...error.logLine.fields,
      });
    return {
      outcome: timedOut ? 'TIMED_OUT' : 'FAILED',
      error: timedOut ? reason.message : errorMessage(error),
      httpStatus: null,
      resultJson: null,
      final: !timedOut && isNonRetryable(error),
    };
  } finally {
    clearTimeout(timer);
    untrack();
  }
}

/**
 * Records the attempt's end as decideAttemptEnd says (group-committed, and retried while MongoDB
 * is unreachable, so a finished attempt's result is not lost); then announces it and, for a
 * retry, enqueues the next attempt (which reads the job again: a fixed target applies to it).
 */
async function finish(deps: RunDeps, run: Run, job: JobSnapshot, started: Started, result: AttemptResult): Promise<void> {
  const decision = decideAttemptEnd(
    result,
    { number: started.number, maxAttempts: run.maxAttempts, retryPolicy: job.retryPolicy },
    deps.clock(),
    deps.random,
  );
  // A start not written yet is written by the end, in the same statement.
  const start = (await started.claim.settle())
    ? null
    : { from: { status: run.status, attempt: run.attempt }, startedAt: started.startedAt, workerId: deps.workerId };
  const end: AttemptEnd = { ...decision, outcome: result.outcome, httpStatus: result.httpStatus };
  const { ended, addedToCancelled, at } = await retryWhileMongoDown(
    () => deps.runStore.endAttempt({ id: run._id, attempt: started.number, ...end, start }),
    { forMs: END_RETRY_MS },
  );
  if (!ended) {
    // Cancelled while the attempt ran unwritten: whoever cancelled announced CANCELLED, possibly
    // before this attempt's RUNNING; saying it again leaves subscribers with the execution's last state.
    if (addedToCancelled) await publishStatusEvents(deps.events, deps.logger, [statusEvent(run, 'RUNNING', 'CANCELLED', at)]);
    // Else the execution moved on without this attempt (taken over meanwhile, or cancelled and retried): say so, for operators.
    else
      attemptLogger(deps.logger, run.tenantId, run.jobId, run.executionId).warn('attempt ended after its execution moved on', {
        attempt: started.number,
        outcome: result.outcome,
      });
    return;
  }
  recordAttemptEnd(deps.metrics, run, result.outcome, decision, at.getTime() - started.startedAt.getTime());
  if (result.outcome === 'FAILED' || result.outcome === 'TIMED_OUT' || result.outcome === 'CRASHED') {
    // One line per failed attempt (a refused target included: its error says so), for operators.
    attemptLogger(deps.logger, run.tenantId, run.jobId, run.executionId).warn('attempt failed', {
      attempt: started.number,
      outcome: result.outcome,
      error: result.error,
      next: decision.status,
    });
  }
  // With what the end wrote, so a subscriber that relayed the RUNNING event needs no read (events/relayedExecutions.ts).
  await publishStatusEvents(deps.events, deps.logger, [
    withAttemptEnd(statusEvent(run, 'RUNNING', decision.status, at), started.number, end),
  ]);
  if (decision.status === 'RETRYING' && decision.nextAttemptAt) {
    await deps.queues.enqueue([queueEntry({ ...run, status: 'RETRYING', attempt: started.number }, decision.nextAttemptAt)]);
  }
}

/** The attempt's lines carry which tenant, job and execution they are about (ids as ids/logFields.ts spells them). */
function attemptLogger(logger: Logger, tenantId: string, jobId: ObjectId, executionId: ObjectId | string): Logger {
  return logger.child({ tenantId, ...jobLogFields(jobId), ...executionLogFields(executionId) });
}

function recordAttemptEnd(
  metrics: KairosMetrics,
  run: Run,
  outcome: AttemptResult['outcome'],
  decision: AttemptEndDecision,
  durationMs: number,
): void {
  metrics.attemptEnded(outcome, run.workload, run.tenantId, durationMs);
  if (decision.status === 'RETRYING') metrics.retried(run.workload);
  else metrics.executionFinished(decision.status, run.trigger, run.tenantId);
}

/** A takeover recorded the lost attempt CRASHED: the execution retries or, with no attempt left, has FAILED. */
function recordCrashed(metrics: KairosMetrics, running: ExecutionDoc, after: ExecutionDoc, durationMs: number | null): void {
  metrics.tookOver();
  metrics.attemptEnded('CRASHED', running.workload, running.tenantId, durationMs);
  if (after.status === 'RETRYING') metrics.retried(running.workload);
  else if (after.status === 'FAILED') metrics.executionFinished('FAILED', running.trigger, running.tenantId);
}
