import { ObjectId } from 'mongodb';
import { newExecution, type ExecutionDoc } from '../domain/execution.js';
import type { JobDoc, JobStatus } from '../domain/job.js';
import { firstAtOrAfter, nextAfter } from '../domain/schedule/nextOccurrences.js';
import { applyJitter } from '../domain/schedule/jitter.js';
import type { ExecutionEventBus } from '../events/executionEventBus.js';
import { publishStatusEvents, statusEvent, withExecution } from '../events/statusEvent.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';
import { queueEntry } from '../queue/queueEntry.js';
import type { JobAdvance, SchedulerStore } from '../store/schedulerStore.js';
import { overBudgetReason, type ScheduledBudget } from '../quotas/scheduledBudget.js';

/** The jobs' states after a pass's advance (the sweep settles the due index from them). */
type JobStates = Awaited<ReturnType<SchedulerStore['jobStates']>>;
import type { Logger } from '../logger.js';
import type { DueIndex } from './dueIndex.js';

/** At most this many occurrences of one job are materialised per pass; the rest wait for the next pass. */
export const MAX_OCCURRENCES_PER_JOB = 100;

export interface MaterialiseDeps {
  store: SchedulerStore;
  /** Which jobs are due (Redis); the sweep reads it, the API's schedule writes keep it early. */
  dueIndex: DueIndex;
  queues: ExecutionQueues;
  events: ExecutionEventBus;
  logger: Logger;
  /** Source of jitter; Math.random in production. */
  random: () => number;
  /** The tenants' budgets of scheduled executions per minute: an occurrence past it is recorded SKIPPED. */
  budget: Pick<ScheduledBudget, 'charge'>;
}

/** At most this many missed occurrences of one job and gap are recorded (run or SKIPPED). */
export const MAX_MISSED_RECORDED = 100;

/** One occurrence to write: run it (`skippedReason` null) or record it as SKIPPED. */
export interface PlannedOccurrence {
  nominal: Date;
  trigger: 'SCHEDULE' | 'CATCH_UP';
  /** When it is due; null = the nominal instant plus the job's jitter. */
  dueAt: Date | null;
  skippedReason: string | null;
}

const MISSED = 'missed while the scheduler was down';

/**
 * What to materialise for `job` now: its occurrences from scheduleCursor up to `horizon`, and where its
 * schedule goes next. Occurrences older than `now - misfireThresholdMs` were missed (no leader ran
 * the sweep in time) and follow the job's misfire policy: RUN_ALL runs each as CATCH_UP, RUN_ONCE
 * runs the last one as CATCH_UP and records the others SKIPPED, SKIP records them all SKIPPED. At
 * most MAX_MISSED_RECORDED are recorded per gap; the rest of a longer gap is jumped over.
 */
export function planOccurrences(
  job: JobDoc,
  now: Date,
  horizon: Date,
  misfireThresholdMs: number,
): { occurrences: PlannedOccurrence[]; scheduleCursor: Date | null; status: JobStatus } {
  const occurrences: PlannedOccurrence[] = [];
  const cutoff = new Date(now.getTime() - misfireThresholdMs);
  let cursor = job.scheduleCursor;
  const missed: Date[] = [];
  while (cursor && cursor < cutoff && missed.length < MAX_MISSED_RECORDED) {
    missed.push(cursor);
    cursor = nextAfter(job.schedule, cursor);
  }
  if (cursor && cursor < cutoff) cursor = firstAtOrAfter(job.schedule, cursor, cutoff);
  missed.forEach((nominal, i) => {
    const runIt = job.misfirePolicy === 'RUN_ALL' || (job.misfirePolicy === 'RUN_ONCE' && i === missed.length - 1);
    occurrences.push({
      nominal,
      trigger: runIt ? 'CATCH_UP' : 'SCHEDULE',
      dueAt: runIt ? now : nominal,
      skippedReason: runIt
        ? null
        : job.misfirePolicy === 'SKIP'
          ? `${MISSED} (misfire policy SKIP)`
          : `${MISSED}; one catch-up execution ran for the missed occurrences (misfire policy RUN_ONCE)`,
    });
  });
  const limit = occurrences.length + MAX_OCCURRENCES_PER_JOB;
  while (cursor && cursor.getTime() <= horizon.getTime() && occurrences.length < limit) {
    occurrences.push({ nominal: cursor, trigger: 'SCHEDULE', dueAt: null, skippedReason: null });
    cursor = nextAfter(job.schedule, cursor);
  }
  return { occurrences, scheduleCursor: cursor, status: cursor ? job.status : 'COMPLETED' };
}

export function occurrenceKey(jobId: ObjectId, nominal: Date): string {
  return `${jobId.toHexString()}@${nominal.toISOString()}`;
}

/**
 * Materialises the due occurrences of `jobs` (docs/architecture.md, step 3): those past their tenant's
 * scheduled budget are recorded SKIPPED, then: insert executions as QUEUED (a duplicate
 * occurrence key means already done), enqueue each with a delay equal to its time minus now, then
 * advance each job's scheduleCursor with a compare-and-set on its version and old value. Every step
 * is idempotent, so a crash between steps or a second leader never loses or doubles an occurrence;
 * the next pass or `reconcile` re-enqueues what a crash left QUEUED. Executions are QUEUED before
 * they are enqueued so that a worker never sees one that is still SCHEDULED, keeping events in order.
 */
export async function materialise(
  deps: MaterialiseDeps,
  jobs: JobDoc[],
  now: Date,
  /** Up to when each job is materialised: one instant for all, or one per job (the sweep's stagger). */
  horizon: Date | ((job: JobDoc) => Date),
  fencingToken: number,
  /** Occurrences older than now minus this were missed. Default Infinity (create time): none is. */
  misfireThresholdMs = Infinity,
): Promise<{ executions: number; states: JobStates; advanced: ReadonlySet<string> }> {
  const docs: ExecutionDoc[] = [];
  const advances: JobAdvance[] = [];
  for (const job of jobs) {
    const plan = planOccurrences(job, now, typeof horizon === 'function' ? horizon(job) : horizon, misfireThresholdMs);
    for (const o of plan.occurrences) {
      const doc = newExecution(
        {
          tenantId: job.tenantId,
          jobId: job._id,
          occurrenceKey: occurrenceKey(job._id, o.nominal),
          trigger: o.trigger,
          workload: job.workload,
          scheduledFor: o.dueAt ?? applyJitter(o.nominal, job.schedule.jitterSeconds, deps.random),
          maxAttempts: job.retryPolicy.maxAttempts,
          fencingToken,
        },
        now,
      );
      // Inserted QUEUED at once (no SCHEDULED write to follow): it is enqueued right after the insert,
      // and a crash in between leaves a QUEUED execution without an entry, which the next pass or reconcile re-enqueues.
      docs.push(o.skippedReason ? skippedAs(doc, o.skippedReason, now) : { ...doc, status: 'QUEUED', queuedAt: now });
    }
    advances.push({
      jobId: job._id,
      version: job.version,
      expected: job.scheduleCursor,
      scheduleCursor: plan.scheduleCursor,
      status: plan.status,
      fencingToken,
    });
  }
  await skipOverBudget(deps, docs, now);

  const { inserted, leftBehind } = await deps.store.insertExecutions(docs);
  const fresh = inserted.filter((e) => e.status === 'QUEUED');
  const skipped = inserted.filter((e) => e.status === 'SKIPPED');
  // Left-behind executions are queued again (idempotent), but only what this pass inserted is
  // announced: repeating another pass's events could put a QUEUED after the worker's RUNNING.
  const waiting = [...fresh, ...leftBehind];
  await deps.store.markQueued(
    leftBehind.filter((e) => e.status === 'SCHEDULED').map((e) => e._id),
    now,
  );
  await publishStatusEvents(deps.events, deps.logger, [
    ...skipped.flatMap((e) => withExecution(e, [statusEvent(e, null, 'SKIPPED', now)])),
    ...fresh.flatMap((e) => withExecution(e, [statusEvent(e, null, 'SCHEDULED', now), statusEvent(e, 'SCHEDULED', 'QUEUED', now)])),
  ]);
  // The job travels with the entry: the worker starts the execution without reading it.
  const byId = new Map(jobs.map((j) => [j._id.toHexString(), j]));
  await deps.queues.enqueue(
    waiting.map((e) => queueEntry({ ...e, status: 'QUEUED' }, e.scheduledFor, { kind: 'waiting' }, byId.get(e.jobId.toHexString()))),
  );
  const landed = await deps.store.advanceJobs(advances, now);
  const states = await statesAfter(deps, advances, landed);
  await dropIfJobChanged(deps, jobs, states, waiting, now);
  const advanced = new Set(advances.filter((_, i) => landed?.[i]).map((a) => a.jobId.toHexString()));
  return { executions: waiting.length, states, advanced };
}

function skippedAs(doc: ExecutionDoc, reason: string, now: Date): ExecutionDoc {
  return { ...doc, status: 'SKIPPED', reason, finishedAt: now };
}

/**
 * Charges each tenant's occurrences that would run against its scheduled budget, earliest first,
 * and records those past it SKIPPED (in place in `docs`). Charged when materialised, up to the
 * look-ahead before they are due: in steady state each pass charges what entered the horizon, so
 * the rate is the occurrences' rate. A pass repeated after a crash charges its occurrences again;
 * that errs towards skipping, only then.
 */
async function skipOverBudget(deps: MaterialiseDeps, docs: ExecutionDoc[], now: Date): Promise<void> {
  const byTenant = new Map<string, number[]>();
  docs.forEach((doc, i) => {
    if (doc.status === 'SKIPPED') return;
    const indexes = byTenant.get(doc.tenantId);
    if (indexes) indexes.push(i);
    else byTenant.set(doc.tenantId, [i]);
  });
  for (const [tenantId, indexes] of byTenant) {
    const { allowed, perMinute } = await deps.budget.charge(tenantId, indexes.length);
    if (allowed >= indexes.length) continue;
    indexes.sort((a, b) => docs[a].scheduledFor.getTime() - docs[b].scheduledFor.getTime());
    for (const i of indexes.slice(allowed)) docs[i] = skippedAs(docs[i], overBudgetReason(perMinute), now);
  }
}

/**
 * A pause or delete that lands while a pass is under way cancels the job's waiting executions
 * before this pass inserted its own, which would then run for a job that should not run. Such
 * changes bump the job's version (sweeps do not, so a second leader never trips this): executions
 * this pass inserted for a job now changed and no longer ACTIVE (or gone) are cancelled. A job
 * that was updated and is still ACTIVE keeps them: an occurrence its new schedule shares must not
 * be lost, and at-least-once prefers an extra run of an old occurrence to a missed one.
 */
async function dropIfJobChanged(
  deps: MaterialiseDeps,
  jobs: JobDoc[],
  states: JobStates,
  waiting: ExecutionDoc[],
  now: Date,
): Promise<void> {
  if (waiting.length === 0) return;
  const stopped = new Set(
    jobs
      .filter((j) => {
        const state = states.get(j._id.toHexString());
        return !state || (state.version !== j.version && state.status !== 'ACTIVE');
      })
      .map((j) => j._id.toHexString()),
  );
  const stale = waiting.filter((e) => stopped.has(e.jobId.toHexString()));
  if (stale.length === 0) return;
  const cancelled = new Set(
    (
      await deps.store.cancelWaiting(
        stale.map((e) => e._id),
        STALE_REASON,
        now,
      )
    ).map((id) => id.toHexString()),
  );
  const mine = stale.filter((e) => cancelled.has(e._id.toHexString()));
  await Promise.all(
    mine.map((e) =>
      deps.queues.remove({ executionId: e._id.toHexString(), tenantId: e.tenantId, workload: e.workload }, 'QUEUED', e.attempt),
    ),
  );
  await publishStatusEvents(
    deps.events,
    deps.logger,
    mine.map((e) => statusEvent(e, 'QUEUED', 'CANCELLED', now)),
  );
}

/**
 * The jobs' states after their advance. One that landed (a compare-and-set on the version the pass
 * read) says the state itself; only the jobs whose advance missed are read back.
 */
async function statesAfter(deps: MaterialiseDeps, advances: JobAdvance[], landed: boolean[] | null): Promise<JobStates> {
  const states: JobStates = new Map();
  advances.forEach((a, i) => {
    if (landed?.[i]) states.set(a.jobId.toHexString(), { version: a.version, status: a.status, scheduleCursor: a.scheduleCursor });
  });
  const missed = advances.filter((a) => !states.has(a.jobId.toHexString()));
  if (missed.length > 0) for (const [id, state] of await deps.store.jobStates(missed.map((a) => a.jobId))) states.set(id, state);
  return states;
}

const STALE_REASON = 'the job was paused or deleted while this occurrence was being materialised';
