import { SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE, ATTR_HTTP_RESPONSE_STATUS_CODE } from '@opentelemetry/semantic-conventions';
import type { Dispatcher } from 'undici';
import type { Clock } from '../clock.js';
import { errorMessage, type Logger } from '../logger.js';
import type { AttemptResult } from '../domain/attemptEnd.js';
import { signingSecrets } from '../domain/webhookSecretRotation.js';
import { CancelledError, ShutdownError, type CancelSignals } from '../events/cancelSignals.js';
import { toGlobalId } from '../ids/globalId.js';
import type { JobSnapshot } from '../queue/queueEntry.js';
import type { TenantStore } from '../store/tenantStore.js';
import { inSpan } from '../tracing/inSpan.js';
import { SPAN_ATTRIBUTES as A } from '../tracing/spanAttributes.js';
import { traceparent } from '../tracing/traceparent.js';
import { attemptLogger } from './attemptLogger.js';
import type { ChildProcessRunner } from './cpu/childProcessRunner.js';
import type { DeferredClaim } from './deferredClaims.js';
import type { HandlerRegistry } from './handlers/handler.js';
import type { Run } from './run.js';
import { callHttpTarget } from './targets/httpTarget.js';
import { isNonRetryable, UnusableTargetError } from './targets/targetAgent.js';

export interface TargetDeps {
  /** The tenant's webhook signing secrets, for HTTP targets: the one read that gives the current and the previous. */
  tenants: Pick<TenantStore, 'ensure'>;
  handlers: HandlerRegistry;
  /** Runs CPU_BOUND handler attempts in child processes. */
  cpu: Pick<ChildProcessRunner, 'run'>;
  /** Cancellation and shutdown signals reach the running attempt through these. */
  cancels: Pick<CancelSignals, 'track' | 'clear'>;
  /** How HTTP targets are reached: the guarded connection pool and whether private addresses are allowed. */
  http: { dispatcher: Dispatcher; allowPrivate: boolean };
  /** A span per attempt (the no-op tracer when tracing is off). */
  tracer: Tracer;
  clock: Clock;
  logger: Logger;
}

/** What of a delivery's execution running its target needs. */
export type TargetRun = Pick<Run, '_id' | 'executionId' | 'tenantId' | 'jobId' | 'workload' | 'scheduledFor' | 'payloadJson' | 'trigger'>;

/** The claimed attempt: its number, and its start's write, which tells it when the execution changed meanwhile. */
export interface TargetAttempt {
  number: number;
  claim: Pick<DeferredClaim, 'onMissed'>;
}

class AttemptTimeout extends Error {}

/**
 * Runs the attempt's target inside its span. An HTTP target gets the span as its `traceparent`, so
 * the receiver's trace joins the scheduler's; failed, timed-out and crashed attempts mark the span as an error.
 */
export async function runTarget(deps: TargetDeps, run: TargetRun, job: JobSnapshot, started: TargetAttempt): Promise<AttemptResult> {
  const attributes = {
    [A.executionId]: toGlobalId('Execution', run._id),
    [A.jobId]: toGlobalId('Job', run.jobId),
    [A.tenantId]: run.tenantId,
    [A.attempt]: started.number,
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
  deps: TargetDeps,
  run: TargetRun,
  job: JobSnapshot,
  started: TargetAttempt,
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
      // The same instant signs the delivery and decides whether the previous secret's grace is over.
      const now = deps.clock();
      const response = await callHttpTarget({
        ...job.target,
        payloadJson,
        executionId: toGlobalId('Execution', run._id),
        jobId: toGlobalId('Job', run.jobId),
        attempt: number,
        scheduledFor: run.scheduledFor,
        secret: signingSecrets(tenant, now),
        signal: controller.signal,
        now,
        dispatcher: deps.http.dispatcher,
        allowPrivate: deps.http.allowPrivate,
        traceparent: traceparentHeader,
      });
      return {
        outcome: response.ok ? 'SUCCEEDED' : 'FAILED',
        error: response.ok ? null : `HTTP ${response.status}`,
        httpStatus: response.status,
        resultJson: JSON.stringify(response.result),
        // What decideAttemptEnd reads of a failed answer: when to come back, where it redirects.
        ...(response.ok
          ? {}
          : { retryAfter: response.result.headers['retry-after'] ?? null, location: response.result.headers['location'] ?? null }),
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
