import type { JobDoc } from '../domain/job.js';
import type { ExecutionEventBus } from '../events/executionEventBus.js';
import type { AlertSink } from '../domain/alertSink.js';
import type { Logger } from '../logger.js';
import type { ScheduledBudget } from '../quotas/scheduledBudget.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';
import type { SchedulerStore } from '../store/schedulerStore.js';
import { insertOccurrences } from '../transitions/insertOccurrences.js';
import type { StatusPublisher } from '../transitions/statusEvents.js';
import { dropIfJobChanged, statesAfter, trimIfJobChanged, type JobStates } from './changedUnderPass.js';
import type { DueIndex } from './dueIndex.js';
import { afterHeads, chargeBudgets, firstPass, planJobs, type JobPass, type PassInputs } from './jobPass.js';

export interface MaterialiseDeps {
  store: SchedulerStore;
  /** Which jobs are due (Redis); the sweep reads it, the API's schedule writes keep it early (jobScheduling.ts). */
  dueIndex: DueIndex;
  queues: ExecutionQueues;
  events: ExecutionEventBus;
  logger: Logger;
  /** Source of jitter; Math.random in production. */
  random: () => number;
  /** The tenants' budgets of scheduled executions per minute: an occurrence past it is recorded SKIPPED. */
  budget: Pick<ScheduledBudget, 'charge'>;
  /** Told of the occurrences recorded SKIPPED, for alert rules (none: no alerts evaluated). */
  alerts?: AlertSink;
}

/** What one materialisation pass calls (MaterialiseDeps, narrowed to it). */
export interface PassDeps {
  store: Pick<SchedulerStore, 'insertExecutions' | 'markQueued' | 'advanceJobs' | 'jobStates' | 'cancelWaiting' | 'rewriteSkips'>;
  queues: Pick<ExecutionQueues, 'enqueue' | 'remove'>;
  events: StatusPublisher;
  logger: Logger;
  random: () => number;
  budget: Pick<ScheduledBudget, 'charge'>;
  alerts?: AlertSink;
}

/**
 * Materialises the due occurrences of `jobs` (docs/architecture.md, "The life of an occurrence", step 3): plans each job's
 * occurrences up to its horizon (planOccurrences.ts), charges those that would run to their
 * tenant's scheduled budget and records the ones past it SKIPPED, several to a record (jobPass.ts,
 * budgetSkips.ts), inserts the executions, QUEUED or SKIPPED, publishes their events and enqueues
 * each with a delay equal to its time minus now (the insertOccurrences transition), then advances
 * each job's scheduleCursor with a compare-and-set on its version and old value, and takes back what
 * it wrote for a job that changed meanwhile (changedUnderPass.ts). Every step is idempotent, so a
 * crash between steps or a second leader never loses or doubles an occurrence; the next pass or
 * `reconcile` re-enqueues what a crash left QUEUED.
 *
 * A SKIPPED record of many occurrences holds the key of its first one only, so the unique index
 * alone would not stop another pass from writing one of the others. Each job's first execution of a
 * pass (its head, keyed by the cursor, which every pass from that cursor writes first) is therefore
 * inserted before the rest and, when the pass grouped skips, carries its decisions (PassRecord),
 * which a pass finding that head repeats (jobPass.ts afterHeads).
 */
export async function materialise(
  deps: PassDeps,
  jobs: JobDoc[],
  now: Date,
  /** Up to when each job is materialised: one instant for all, or one per job (the sweep's stagger). */
  horizon: Date | ((job: JobDoc) => Date),
  fencingToken: number,
  /** Occurrences older than now minus this were missed. Default Infinity (create time): none is. */
  misfireThresholdMs = Infinity,
): Promise<{ executions: number; states: JobStates; advanced: ReadonlySet<string> }> {
  const planned = planJobs(jobs, now, horizon, misfireThresholdMs);
  const inputs: PassInputs = { random: deps.random, budgets: await chargeBudgets(deps.budget, planned), fencingToken, now };
  const passes = planned.map((p) => firstPass(inputs, p));
  let settled: JobPass[] = [];
  // The heads first: a pass owns its decisions for a job only where its head landed.
  const { inserted, waiting } = await insertOccurrences(
    deps,
    passes.flatMap((p) => p.items.slice(0, 1).map((i) => i.doc)),
    async (heads) => {
      settled = await afterHeads(deps.budget, inputs, planned, passes, heads);
      return settled.flatMap((p) => p.items.map((i) => i.doc));
    },
    jobs,
    now,
  );
  const advances = settled.map((p) => p.advance);
  const landed = await deps.store.advanceJobs(advances, now);
  const states = await statesAfter(deps.store, advances, landed);
  await dropIfJobChanged(deps, jobs, states, waiting, now);
  await trimIfJobChanged(deps.store, jobs, states, inserted, now);
  const advanced = new Set(advances.filter((_, i) => landed?.[i]).map((a) => a.jobId.toHexString()));
  return { executions: waiting.length, states, advanced };
}
