import type { ExecutionDoc, ExecutionTrigger, UnstartedEndStatus } from '../domain/execution.js';
import type { ExecutionEventMessage } from '../events/executionEventBus.js';
import type { KairosMetrics } from '../metrics/kairosMetrics.js';
import type { RunStore } from '../store/runStore.js';
import type { Logger } from '../logger.js';
import { reportEnds, type AlertSink } from '../domain/alertSink.js';
import { publishStatusEvents, statusEvent, type StatusPublisher } from './statusEvents.js';

export interface EndUnstartedDeps {
  store: Pick<RunStore, 'endUnstarted'>;
  events: StatusPublisher;
  logger: Logger;
  metrics: Pick<KairosMetrics, 'executionFinished'>;
  /** Told of a SKIPPED end (the overlap policy's), for alert rules (none: no alerts evaluated). */
  alerts?: AlertSink;
}

/** Why a worker ends an execution before any attempt: its job's overlap policy skips it, or it is cancelled (its job is gone). */
export interface UnstartedEnd {
  kind: 'skip' | 'cancel';
  reason: string;
}

const STATUS_OF: Record<UnstartedEnd['kind'], UnstartedEndStatus> = { skip: 'SKIPPED', cancel: 'CANCELLED' };

/**
 * Ends a waiting execution before any attempt (waiting → SKIPPED or CANCELLED, with the reason), as a
 * compare-and-set on the status and attempts the worker expects; counts it finished and publishes
 * the event. Null, with nothing recorded, when the execution changed meanwhile.
 */
export async function endUnstarted(
  deps: EndUnstartedDeps,
  input: {
    run: Pick<ExecutionDoc, '_id' | 'tenantId' | 'jobId' | 'status' | 'attempt'> & { trigger?: ExecutionTrigger };
    end: UnstartedEnd;
  },
  now: Date,
): Promise<ExecutionEventMessage | null> {
  const { run, end } = input;
  const status = STATUS_OF[end.kind];
  if (!(await deps.store.endUnstarted(run, status, end.reason, now))) return null;
  deps.metrics.executionFinished(status, run.trigger, run.tenantId);
  const event = statusEvent(run, run.status, status, now);
  await publishStatusEvents(deps.events, deps.logger, [event]);
  reportEnds(deps.alerts, [
    {
      tenantId: run.tenantId,
      jobId: event.jobId,
      executionId: event.executionId,
      status,
      trigger: run.trigger,
      reason: end.reason,
      at: now,
    },
  ]);
  return event;
}
