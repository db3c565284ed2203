import type { AttemptEnd, ExecutionDoc } from '../domain/execution.js';
import type { AttemptEndDecision } from '../domain/attemptEnd.js';
import type { ExecutionEventMessage } from '../events/executionEventBus.js';
import type { KairosMetrics } from '../metrics/kairosMetrics.js';
import type { EntryExecution } from '../queue/queueEntry.js';
import type { RunStore } from '../store/runStore.js';
import type { Logger } from '../logger.js';
import { reportEnds, type AlertSink } from '../domain/alertSink.js';
import { publishStatusEvents, statusEvent, withAttemptEnd, type StatusPublisher } from './statusEvents.js';

export interface EndAttemptDeps {
  /** The end's compare-and-set (the worker retries it while MongoDB is unreachable). */
  store: Pick<RunStore, 'endAttempt'>;
  events: StatusPublisher;
  logger: Logger;
  metrics: Pick<KairosMetrics, 'attemptEnded' | 'retried' | 'executionFinished'>;
  /** Told of a SUCCEEDED or FAILED end, for alert rules (none: no alerts evaluated). */
  alerts?: AlertSink;
}

export interface EndAttemptInput<R extends EntryExecution> {
  /** The execution as the attempt's start found it: its status and attempts started before the attempt. */
  run: R;
  /** The attempt's number and start. */
  attempt: number;
  startedAt: Date;
  workerId: string;
  /** Whether MongoDB holds the attempt's start; else the end writes it too, in the same statement. */
  startWritten: boolean;
  /** What the end writes (decideAttemptEnd, plus the attempt's outcome). */
  end: AttemptEnd & Pick<AttemptEndDecision, 'status'>;
}

/** What an attempt's end did. */
export type EndedAttempt<R> =
  /** Ended as `end` says; for a retry, `retry` is the execution waiting for its next attempt (RETRYING), due at `dueAt`. */
  | {
      kind: 'ended';
      at: Date;
      event: ExecutionEventMessage;
      retry: { execution: R & Pick<ExecutionDoc, 'status' | 'attempt'>; dueAt: Date } | null;
    }
  /** Cancelled while the attempt ran with its start unwritten: the attempt joined the cancelled execution's record. */
  | { kind: 'joined-cancelled'; at: Date; event: ExecutionEventMessage }
  /** The execution moved on without this attempt (taken over meanwhile, or cancelled and retried): nothing written. */
  | { kind: 'moved-on'; at: Date };

/**
 * Ends a RUNNING attempt (RUNNING → SUCCEEDED, RETRYING, FAILED or CANCELLED; for an attempt whose
 * start was never written, from the state the start expected): the compare-and-set through the
 * store, the attempt's metrics, and the event carrying what the end wrote, so a subscriber that
 * relayed the RUNNING event needs no read (events/relayedExecutions.ts).
 */
export async function endAttempt<R extends EntryExecution>(deps: EndAttemptDeps, input: EndAttemptInput<R>): Promise<EndedAttempt<R>> {
  const { run, attempt, end } = input;
  const start = input.startWritten
    ? null
    : { from: { status: run.status, attempt: run.attempt }, startedAt: input.startedAt, workerId: input.workerId };
  const { ended, addedToCancelled, at } = await deps.store.endAttempt({ id: run._id, attempt, ...end, start });
  if (!ended) {
    if (!addedToCancelled) return { kind: 'moved-on', at };
    // Whoever cancelled announced CANCELLED, possibly before this attempt's RUNNING; saying it again
    // leaves subscribers with the execution's last state.
    const event = statusEvent(run, 'RUNNING', 'CANCELLED', at);
    await publishStatusEvents(deps.events, deps.logger, [event]);
    return { kind: 'joined-cancelled', at, event };
  }
  deps.metrics.attemptEnded(end.outcome, run.workload, run.tenantId, at.getTime() - input.startedAt.getTime());
  if (end.status === 'RETRYING') deps.metrics.retried(run.workload);
  else deps.metrics.executionFinished(end.status, run.trigger, run.tenantId);
  const event = withAttemptEnd(statusEvent(run, 'RUNNING', end.status, at), attempt, end);
  await publishStatusEvents(deps.events, deps.logger, [event]);
  reportEnds(deps.alerts, [{ ...ids(run), status: end.status, trigger: run.trigger, reason: null, at }]);
  const retry =
    end.status === 'RETRYING' && end.nextAttemptAt
      ? { execution: { ...run, status: 'RETRYING' as const, attempt }, dueAt: end.nextAttemptAt }
      : null;
  return { kind: 'ended', at, event, retry };
}

/** The ids an alert names, from the execution as the attempt's start found it. */
function ids(run: EntryExecution): { tenantId: string; jobId: string; executionId: string } {
  return { tenantId: run.tenantId, jobId: run.jobId.toHexString(), executionId: run._id.toHexString() };
}
