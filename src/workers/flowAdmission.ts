import type { Clock } from '../clock.js';
import type { FlowControl } from '../domain/flowControl.js';
import type { JobSnapshot } from '../queue/queueEntry.js';
import type { FlowHold, FlowLimiter } from '../quotas/flowLimiter.js';
import { redeliverAt, tenantWaitMs, type Redelivery, type TenantWait } from './tenantWait.js';
import type { AdmittedRun } from './admission.js';

/** A place taken on the job's flow-control key: `new` by this delivery, or `held` by the execution already (a redelivery). */
export interface FlowPlace {
  hold: FlowHold;
  taken: 'new' | 'held';
}

/** A waiter on a key whose minute of starts is used up comes back at the next free start, spread over up to this much. */
const RATE_JITTER_MS = 200;

/**
 * Takes a place on the job's flow-control key for the delivery's next attempt, before anything else
 * a wait would have to give back (docs/architecture.md, "Flow control"). Refused, the delivery waits
 * holding nothing: for a running place, woken by the next release (with timed tries spaced by the
 * key's queue, as a tenant slot's); for the minute's starts, until the start it may take next.
 */
export async function takeFlowPlace(
  deps: { flow: Pick<FlowLimiter, 'take'>; clock: Clock; random: () => number },
  run: AdmittedRun,
  job: JobSnapshot,
  flow: FlowControl,
  ttlMs: number,
  wait: TenantWait,
): Promise<{ kind: 'place'; place: FlowPlace } | { kind: 'wait'; redelivery: Redelivery }> {
  const hold: FlowHold = {
    tenantId: run.tenantId,
    limits: flow,
    executionId: run.executionId,
    startId: `${run.executionId}:${run.attempt + 1}`,
  };
  const taken = await deps.flow.take(hold, ttlMs, wait.waiter);
  switch (taken.kind) {
    case 'new':
    case 'held':
      return { kind: 'place', place: { hold, taken: taken.kind } };
    case 'concurrency': {
      const at = new Date(deps.clock().getTime() + tenantWaitMs(taken.waiting, flow.maxConcurrent ?? 1, deps.random));
      return { kind: 'wait', redelivery: redeliverAt(run, job, wait, at) };
    }
    case 'rate': {
      const at = new Date(Math.max(deps.clock().getTime(), taken.at.getTime()) + Math.floor(deps.random() * RATE_JITTER_MS));
      return { kind: 'wait', redelivery: redeliverAt(run, job, wait, at) };
    }
  }
}
