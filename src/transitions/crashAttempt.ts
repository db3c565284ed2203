import type { ExecutionDoc } from '../domain/execution.js';
import type { UnwrittenHolder } from '../domain/attemptEnd.js';
import type { ExecutionEventMessage } from '../events/executionEventBus.js';
import type { KairosMetrics } from '../metrics/kairosMetrics.js';
import type { RunStore } from '../store/runStore.js';
import type { Logger } from '../logger.js';
import { reportEnds, type AlertSink } from '../domain/alertSink.js';
import { publishStatusEvents, statusEvent, type StatusPublisher } from './statusEvents.js';

export interface CrashAttemptDeps {
  store: Pick<RunStore, 'recordCrash'>;
  events: StatusPublisher;
  logger: Logger;
  metrics: Pick<KairosMetrics, 'tookOver' | 'attemptEnded' | 'retried' | 'executionFinished'>;
  /** Told of a FAILED end, for alert rules (none: no alerts evaluated). */
  alerts?: AlertSink;
}

export interface CrashAttemptInput {
  /** The execution as read: RUNNING the lost attempt, or still waiting when that attempt's start was never written. */
  current: ExecutionDoc;
  /** The lost attempt's start, from its Redis claim, when it never reached MongoDB; null: `current`'s RUNNING attempt. */
  unwritten: UnwrittenHolder | null;
}

/**
 * A takeover's end of a lost attempt (its worker disappeared): the attempt CRASHED and the execution
 * RETRYING, due now, or FAILED with no attempt left (domain/attemptEnd.ts, crashedFields), as a
 * compare-and-set on status and attempt; the takeover's metrics and the event. Null, with nothing
 * recorded, when the execution changed meanwhile.
 */
export async function crashAttempt(
  deps: CrashAttemptDeps,
  input: CrashAttemptInput,
  now: Date,
): Promise<{ after: ExecutionDoc; event: ExecutionEventMessage } | null> {
  const { current, unwritten } = input;
  const after = await deps.store.recordCrash(current, now, unwritten);
  if (!after) return null;
  const startedAt = unwritten?.startedAt ?? current.attempts.find((a) => a.number === current.attempt)?.startedAt;
  deps.metrics.tookOver();
  deps.metrics.attemptEnded('CRASHED', current.workload, current.tenantId, startedAt ? now.getTime() - startedAt.getTime() : null);
  if (after.status === 'RETRYING') deps.metrics.retried(current.workload);
  else if (after.status === 'FAILED') deps.metrics.executionFinished('FAILED', current.trigger, current.tenantId);
  const event = statusEvent(after, 'RUNNING', after.status, now);
  await publishStatusEvents(deps.events, deps.logger, [event]);
  reportEnds(deps.alerts, [
    {
      tenantId: after.tenantId,
      jobId: event.jobId,
      executionId: event.executionId,
      status: after.status,
      trigger: current.trigger,
      reason: null,
      at: now,
    },
  ]);
  return { after, event };
}
