import { ObjectId } from 'mongodb';
import type { AttemptDoc, AttemptOutcome, ExecutionDoc, ExecutionStatus } from '../domain/execution.js';
import type { JobDoc } from '../domain/job.js';
import { backoffDelayMs } from '../domain/backoff.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { errorMessage } from '../logger.js';
import type { ExecutionEventBus } from '../events/executionEventBus.js';
import { publishStatusEvents, statusEvent } from '../events/statusEvent.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';
import type { RunStore } from '../store/runStore.js';
import type { TenantStore } from '../store/tenantStore.js';
import { toGlobalId } from '../ids/globalId.js';
import type { HandlerRegistry } from './handlers/handler.js';
import { callHttpTarget } from './targets/httpTarget.js';
import { isNonRetryable } from './targets/targetAgent.js';
import { CancelledError, ShutdownError, type CancelSignals } from '../events/cancelSignals.js';
import type { OverlapDecision, OverlapGuard } from './overlapGuard.js';
import type { AttemptClaims } from './attemptClaims.js';
import type { ConcurrencyLimiter } from '../quotas/concurrencyLimiter.js';
import type { Dispatcher } from 'undici';
import type { ChildProcessRunner } from './cpu/childProcessRunner.js';
import { retryWhileMongoDown } from './retryWhileMongoDown.js';

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
  /** The tenants' running slots (maxConcurrentExecutions). */
  tenantSlots: ConcurrencyLimiter;
  /** The queue lock (visibility timeout), part of a running attempt's deadline. */
  queueLockMs: number;
  /** How HTTP targets are reached: the guarded connection pool and whether private addresses are allowed. */
  http: { dispatcher: Dispatcher; allowPrivate: boolean };
}

interface AttemptResult {
  outcome: AttemptOutcome;
  error: string | null;
  httpStatus: number | null;
  resultJson: string | null;
  /** A failure that a further attempt would only repeat (a refused target): the execution ends FAILED. */
  final?: boolean;
}

class AttemptTimeout extends Error {}

/** How long an execution waits (plus up to half as much again of jitter) before trying again for a tenant slot. */
const TENANT_SLOT_RETRY_MS = 500;

/** How long CANCEL_PREVIOUS waits for the cancelled execution to give up the job's slot before taking it anyway. */
const CANCEL_PREVIOUS_WAIT_MS = 15_000;

/**
 * Runs one delivery of an execution (DESIGN.md steps 4–6): drops it unless it is still startable
 * (or takes it over when its previous worker disappeared), applies the job's overlap policy,
 * claims it with a compare-and-set (a finished or cancelled one is dropped), runs its target under
 * the per-attempt timeout, and records the attempt as SUCCEEDED, RETRYING (re-enqueued after
 * backoff), FAILED or CANCELLED.
 */
export async function runExecution(deps: RunDeps, executionId: string, delivery: { takeover: boolean } = { takeover: false }): Promise<void> {
  const found = await deps.runStore.findRunnable(new ObjectId(executionId));
  if (!found) return;
  // RUNNING elsewhere: a duplicate delivery is dropped; a takeover (the queue's stalled check found
  // its lock lapsed, or reconcile found it past its deadline) means the worker running it is gone.
  if (found.status === 'RUNNING' && !delivery.takeover) return;
  if (found.status === 'RUNNING' && !(await deps.claims.takeTakeover(executionId, found.attempt))) return;
  const current = found.status === 'RUNNING' ? await takeOver(deps, found) : found;
  if (!current) {
    // Taken over as FAILED (no attempt left): free the slot the lost attempt held.
    if (found.status === 'RUNNING') await releaseSlot(deps, found, found.jobId.toHexString(), executionId);
    return;
  }
  const job = await deps.runStore.findJob(current.tenantId, current.jobId);
  if (!job) return endUnstarted(deps, current, 'CANCELLED', 'job deleted');

  const jobId = job._id.toHexString();
  const slotTtlMs = job.timeoutSeconds * 1000 + 30_000;
  const tenantSlot = await deps.tenantSlots.take(current.tenantId, executionId, slotTtlMs);
  if (tenantSlot === 'full') return waitForTenantSlot(deps, current);
  let decision = await deps.overlap.decide(job.overlapPolicy, jobId, executionId, slotTtlMs);
  if (decision.action === 'cancel-previous') {
    decision = await cancelPrevious(deps, decision.runningId, jobId, executionId, slotTtlMs);
  }
  if (decision.action !== 'run' && tenantSlot === 'new') await deps.tenantSlots.release(current.tenantId, executionId);
  if (decision.action === 'skip') return endUnstarted(deps, current, 'SKIPPED', decision.reason);
  // BUFFER_ONE: stays QUEUED; the running execution's worker enqueues it when it finishes.
  if (decision.action === 'hold') return;

  let execution: ExecutionDoc | null = null;
  try {
    execution = await startAttempt(deps, current, executionId, job.timeoutSeconds * 1000);
    if (!execution) return;
    await publishStatusEvents(deps.events, deps.logger, [statusEvent(execution, current.status, 'RUNNING', deps.clock())]);
    if (execution.attempt === 1) await deps.runStore.recordJobRun(execution.tenantId, job._id, execution.startedAt ?? deps.clock());
    await finish(deps, execution, job, await attempt(deps, job, execution));
  } catch (error) {
    // MongoDB or Redis failed after the attempt started: record it as lost and queue the next one,
    // so the execution does not stay RUNNING (if this fails too, the stalled check takes it over).
    if (execution) await takeOverAndRequeue(deps, execution);
    throw error;
  } finally {
    // Only a delivery that started the attempt owns the slot; a duplicate that lost the claim must not free it.
    if (execution && job.overlapPolicy !== 'ALLOW') await releaseSlot(deps, current, jobId, executionId);
    // The tenant slot is keyed by execution: a duplicate that took it as new but lost the claim to a
    // delivery now running must leave it to that one (which found it held and releases it when done).
    if (execution || (tenantSlot === 'new' && !(await runningElsewhere(deps, executionId).catch(() => true)))) await deps.tenantSlots.release(current.tenantId, executionId);
  }
}

/**
 * The tenant runs all the executions its quota allows: this one stays as it is (QUEUED or RETRYING)
 * and comes back shortly. The entry id is the TENANT_SLOT_RETRY_MS period it is due in: deliveries
 * of one execution that wait at once (a reconcile re-enqueue, a duplicate) merge into one entry
 * instead of polling side by side, and since it is due at least one period from now it never
 * collides with the entry being processed.
 */
async function waitForTenantSlot(deps: RunDeps, execution: ExecutionDoc): Promise<void> {
  const dueAt = new Date(deps.clock().getTime() + TENANT_SLOT_RETRY_MS * (1 + deps.random() / 2));
  const waitRound = Math.floor(dueAt.getTime() / TENANT_SLOT_RETRY_MS);
  await deps.queues.enqueue([{ executionId: execution._id.toHexString(), tenantId: execution.tenantId, workload: execution.workload, dueAt, waitRound }]);
}

async function runningElsewhere(deps: RunDeps, executionId: string): Promise<boolean> {
  return (await deps.runStore.findRunnable(new ObjectId(executionId)))?.status === 'RUNNING';
}

/** Claims the attempt (Redis, then the MongoDB compare-and-set); null when another delivery has it. */
async function startAttempt(deps: RunDeps, current: ExecutionDoc, executionId: string, timeoutMs: number): Promise<ExecutionDoc | null> {
  const number = current.attempt + 1;
  if (!(await deps.claims.take(executionId, number))) return null;
  try {
    const now = deps.clock();
    const deadlineAt = new Date(now.getTime() + timeoutMs + deps.queueLockMs);
    const execution = await deps.runStore.claim(current, deps.workerId, now, deadlineAt);
    if (!execution) await deps.claims.drop(executionId, number);
    return execution;
  } catch (error) {
    // Let a redelivery try again instead of finding the claim taken.
    await deps.claims.drop(executionId, number).catch(() => undefined);
    throw error;
  }
}

async function takeOverAndRequeue(deps: RunDeps, running: ExecutionDoc): Promise<void> {
  try {
    if (!(await deps.claims.takeTakeover(running._id.toHexString(), running.attempt))) return;
    const after = await takeOver(deps, running);
    if (after) {
      await deps.queues.enqueue([
        { executionId: after._id.toHexString(), tenantId: after.tenantId, workload: after.workload, dueAt: deps.clock(), round: after.attempt },
      ]);
    }
  } catch (error) {
    deps.logger.warn('could not record a failed attempt; the queue will hand it out again', { error: errorMessage(error) });
  }
}

/** Records a lost attempt as CRASHED; returns the execution ready for its next attempt, or null if none is left. */
async function takeOver(deps: RunDeps, running: ExecutionDoc): Promise<ExecutionDoc | null> {
  const now = deps.clock();
  const after = await deps.runStore.recordCrash(running, now);
  if (!after) return null;
  await publishStatusEvents(deps.events, deps.logger, [statusEvent(after, 'RUNNING', after.status, now)]);
  deps.logger.warn('took over an execution whose worker disappeared', { executionId: running._id.toHexString(), attempt: running.attempt });
  return after.status === 'RETRYING' ? after : null;
}

/** Cancels the running execution and waits for its slot; takes the slot anyway after a while (its worker may be gone). */
async function cancelPrevious(deps: RunDeps, runningId: string, jobId: string, executionId: string, slotTtlMs: number): Promise<OverlapDecision> {
  await deps.cancels.cancel(runningId, `cancelled by a newer execution (overlap policy CANCEL_PREVIOUS)`);
  const deadline = Date.now() + CANCEL_PREVIOUS_WAIT_MS;
  while (Date.now() < deadline) {
    const decision = await deps.overlap.decide('SKIP', jobId, executionId, slotTtlMs);
    if (decision.action === 'run') return decision;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await deps.overlap.release(jobId, runningId);
  return deps.overlap.decide('SKIP', jobId, executionId, slotTtlMs);
}

async function releaseSlot(deps: RunDeps, execution: ExecutionDoc, jobId: string, executionId: string): Promise<void> {
  const buffered = await deps.overlap.release(jobId, executionId);
  if (buffered) {
    await deps.queues.enqueue([{ executionId: buffered, tenantId: execution.tenantId, workload: execution.workload, dueAt: deps.clock(), round: 'buffered' }]);
  }
}

async function endUnstarted(deps: RunDeps, execution: ExecutionDoc, status: 'SKIPPED' | 'CANCELLED', reason: string): Promise<void> {
  const now = deps.clock();
  if (await deps.runStore.endUnstarted(execution, status, reason, now)) {
    await publishStatusEvents(deps.events, deps.logger, [statusEvent(execution, execution.status, status, now)]);
  }
}

async function attempt(deps: RunDeps, job: JobDoc, execution: ExecutionDoc): Promise<AttemptResult> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new AttemptTimeout(`Timed out after ${job.timeoutSeconds} s`)), job.timeoutSeconds * 1000);
  const untrack = deps.cancels.track(execution._id.toHexString(), controller);
  const payloadJson = execution.payloadJson ?? job.payloadJson;
  try {
    if (job.target.kind === 'HTTP') {
      const tenant = await deps.tenants.ensure(job.tenantId, deps.clock());
      const response = await callHttpTarget({
        ...job.target,
        payloadJson,
        executionId: toGlobalId('Execution', execution._id),
        jobId: toGlobalId('Job', job._id),
        attempt: execution.attempt,
        scheduledFor: execution.scheduledFor,
        secret: tenant.webhookSecret,
        signal: controller.signal,
        now: deps.clock(),
        dispatcher: deps.http.dispatcher,
        allowPrivate: deps.http.allowPrivate,
      });
      return {
        outcome: response.ok ? 'SUCCEEDED' : 'FAILED',
        error: response.ok ? null : `HTTP ${response.status}`,
        httpStatus: response.status,
        resultJson: JSON.stringify(response.result),
      };
    }
    const context = {
      payload: payloadJson === null ? null : JSON.parse(payloadJson),
      executionId: toGlobalId('Execution', execution._id),
      attempt: execution.attempt,
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
      await deps.cancels.clear(execution._id.toHexString()).catch(() => undefined);
      return { outcome: 'CANCELLED', error: reason.message, httpStatus: null, resultJson: null };
    }
    if (reason instanceof ShutdownError) return { outcome: 'CRASHED', error: reason.message, httpStatus: null, resultJson: null };
    const timedOut = reason instanceof AttemptTimeout;
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

async function finish(deps: RunDeps, execution: ExecutionDoc, job: JobDoc, result: AttemptResult): Promise<void> {
  const now = deps.clock();
  const attempts: AttemptDoc[] = execution.attempts.map((a) =>
    a.number === execution.attempt
      ? { ...a, finishedAt: now, outcome: result.outcome, error: result.error, httpStatus: result.httpStatus }
      : a,
  );
  const failed = result.outcome === 'FAILED' || result.outcome === 'TIMED_OUT' || result.outcome === 'CRASHED';
  const retry = failed && !result.final && execution.attempt < execution.maxAttempts;
  let status: ExecutionStatus;
  let nextAttemptAt: Date | null = null;
  if (result.outcome === 'SUCCEEDED') status = 'SUCCEEDED';
  else if (result.outcome === 'CANCELLED') status = 'CANCELLED';
  else if (retry) {
    status = 'RETRYING';
    nextAttemptAt = new Date(now.getTime() + backoffDelayMs(job.retryPolicy, execution.attempt, deps.random));
  } else status = 'FAILED';

  const ended = await retryWhileMongoDown(() => deps.runStore.endAttempt(
    execution._id,
    execution.attempt,
    {
      status,
      attempts,
      nextAttemptAt,
      finishedAt: retry ? null : now,
      error: result.error,
      reason: result.outcome === 'CANCELLED' ? result.error : null,
      resultJson: result.resultJson,
    },
    now,
  ));
  if (!ended) return;
  await publishStatusEvents(deps.events, deps.logger, [statusEvent(execution, 'RUNNING', status, now)]);
  if (retry && nextAttemptAt) {
    await deps.queues.enqueue(
      [{ executionId: execution._id.toHexString(), tenantId: execution.tenantId, workload: execution.workload, dueAt: nextAttemptAt, round: execution.attempt }],
    );
  }
}
