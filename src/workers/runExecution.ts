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

export interface RunDeps {
  runStore: RunStore;
  tenants: TenantStore;
  queues: ExecutionQueues;
  events: ExecutionEventBus;
  handlers: HandlerRegistry;
  clock: Clock;
  logger: Logger;
  workerId: string;
  random: () => number;
}

interface AttemptResult {
  outcome: AttemptOutcome;
  error: string | null;
  httpStatus: number | null;
  resultJson: string | null;
}

class AttemptTimeout extends Error {}

/**
 * Runs one delivery of an execution (DESIGN.md steps 4–6): claims it with a compare-and-set
 * (a finished or cancelled one is dropped), runs its target under the per-attempt timeout, and
 * records the attempt as SUCCEEDED, RETRYING (re-enqueued after backoff) or FAILED.
 */
export async function runExecution(deps: RunDeps, executionId: string): Promise<void> {
  const id = new ObjectId(executionId);
  const claimed = await deps.runStore.claim(id, deps.workerId, deps.clock());
  if (!claimed) return;
  const { execution, previous } = claimed;
  await publishStatusEvents(deps.events, deps.logger, [statusEvent(execution, previous.status, 'RUNNING', deps.clock())]);

  const job = await deps.runStore.findJob(execution.tenantId, execution.jobId);
  const result: AttemptResult = job
    ? await attempt(deps, job, execution)
    : { outcome: 'CANCELLED', error: 'The job was deleted', httpStatus: null, resultJson: null };
  if (job && execution.attempt === 1) await deps.runStore.recordJobRun(execution.tenantId, job._id, execution.startedAt ?? deps.clock());
  await finish(deps, execution, job, result);
}

async function attempt(deps: RunDeps, job: JobDoc, execution: ExecutionDoc): Promise<AttemptResult> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new AttemptTimeout(`Timed out after ${job.timeoutSeconds} s`)), job.timeoutSeconds * 1000);
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
      });
      return {
        outcome: response.ok ? 'SUCCEEDED' : 'FAILED',
        error: response.ok ? null : `HTTP ${response.status}`,
        httpStatus: response.status,
        resultJson: JSON.stringify(response.result),
      };
    }
    const handler = deps.handlers.get(job.target.handler);
    if (!handler) throw new Error(`No handler named "${job.target.handler}" is registered in this worker`);
    const value = await handler({
      payload: payloadJson === null ? null : JSON.parse(payloadJson),
      executionId: toGlobalId('Execution', execution._id),
      attempt: execution.attempt,
      signal: controller.signal,
    });
    return { outcome: 'SUCCEEDED', error: null, httpStatus: null, resultJson: value === undefined ? null : JSON.stringify(value) };
  } catch (error) {
    const timedOut = controller.signal.reason instanceof AttemptTimeout;
    return {
      outcome: timedOut ? 'TIMED_OUT' : 'FAILED',
      error: timedOut ? (controller.signal.reason as Error).message : errorMessage(error),
      httpStatus: null,
      resultJson: null,
    };
  } finally {
    clearTimeout(timer);
  }
}

async function finish(deps: RunDeps, execution: ExecutionDoc, job: JobDoc | null, result: AttemptResult): Promise<void> {
  const now = deps.clock();
  const attempts: AttemptDoc[] = execution.attempts.map((a) =>
    a.number === execution.attempt
      ? { ...a, finishedAt: now, outcome: result.outcome, error: result.error, httpStatus: result.httpStatus }
      : a,
  );
  const failed = result.outcome === 'FAILED' || result.outcome === 'TIMED_OUT';
  const retry = failed && job !== null && execution.attempt < execution.maxAttempts;
  let status: ExecutionStatus;
  let nextAttemptAt: Date | null = null;
  if (result.outcome === 'SUCCEEDED') status = 'SUCCEEDED';
  else if (result.outcome === 'CANCELLED') status = 'CANCELLED';
  else if (retry) {
    status = 'RETRYING';
    nextAttemptAt = new Date(now.getTime() + backoffDelayMs(job.retryPolicy, execution.attempt, deps.random));
  } else status = 'FAILED';

  const ended = await deps.runStore.endAttempt(
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
  );
  if (!ended) return;
  await publishStatusEvents(deps.events, deps.logger, [statusEvent(execution, 'RUNNING', status, now)]);
  if (retry && nextAttemptAt) {
    await deps.queues.enqueue(
      [{ executionId: execution._id.toHexString(), tenantId: execution.tenantId, workload: execution.workload, dueAt: nextAttemptAt, round: execution.attempt }],
    );
  }
}
