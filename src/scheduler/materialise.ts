import { ObjectId } from 'mongodb';
import { newExecution, type ExecutionDoc, type PassRecord } from '../domain/execution.js';
import type { JobDoc, JobStatus } from '../domain/job.js';
import { firstAtOrAfter, nextAfter } from '../domain/schedule/nextOccurrences.js';
import { applyJitter } from '../domain/schedule/jitter.js';
import type { ExecutionEventBus } from '../events/executionEventBus.js';
import { publishStatusEvents, statusEvent, withExecution } from '../transitions/statusEvents.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';
import { queueEntry } from '../queue/queueEntry.js';
import type { JobAdvance, SchedulerStore } from '../store/schedulerStore.js';
import type { ScheduledBudget } from '../quotas/scheduledBudget.js';
import type { SkipRewrite } from '../store/skipRewrites.js';
import { groupSkips, singlyUntil, skipRecord, trimSkip } from './budgetSkips.js';

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
 * scheduled budget are recorded SKIPPED, several to a record (budgetSkips.ts), then: insert executions
 * as QUEUED (a duplicate occurrence key means already done), enqueue each with a delay equal to its
 * time minus now, then advance each job's scheduleCursor with a compare-and-set on its version and old
 * value. Every step is idempotent, so a crash between steps or a second leader never loses or doubles
 * an occurrence; the next pass or `reconcile` re-enqueues what a crash left QUEUED. Executions are
 * QUEUED before they are enqueued so that a worker never sees one that is still SCHEDULED, keeping
 * events in order.
 *
 * A SKIPPED record of many occurrences holds the key of its first one only, so the unique index
 * alone would not stop another pass from writing one of the others. Each job's first execution of a
 * pass (its head, keyed by the cursor, which every pass from that cursor writes first) is therefore
 * inserted before the rest and, when the pass grouped skips, carries its decisions (PassRecord). A
 * pass whose head is already there repeats the decisions found on it (same inputs, same budget
 * split) instead of its own; one that finds an execution without them, or from another version of
 * the job, records its budget skips one each, so that they collide key by key as before.
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
  const missedBefore = Number.isFinite(misfireThresholdMs) ? new Date(now.getTime() - misfireThresholdMs) : null;
  const planned: PlannedJob[] = jobs.map((job) => {
    const until = typeof horizon === 'function' ? horizon(job) : horizon;
    const record: PassRecord = { version: job.version, now, horizon: until, missedBefore, budgetFrom: null };
    return { job, record, plan: planOccurrences(job, now, until, misfireThresholdMs) };
  });
  const budgets = await chargeBudgets(deps, planned);
  const build = (job: JobDoc, record: PassRecord, singly: Date | null, plan?: PlannedJob['plan']) =>
    jobPass(deps, job, record, plan, budgets.get(job.tenantId) ?? Infinity, singly, fencingToken, now);
  const passes = planned.map(({ job, record, plan }) => build(job, record, singlyUntil(job, record.now, record.horizon), plan));

  // The heads first: a pass owns its decisions for a job only where its head landed.
  const heads = await deps.store.insertExecutions(passes.flatMap((p) => p.items.slice(0, 1).map((i) => i.doc)));
  const landed = new Set(heads.inserted);
  const found = new Map(heads.existing.map((e) => [`${e.tenantId}/${e.occurrenceKey}`, e]));
  const settled: JobPass[] = [];
  for (const [i, pass] of passes.entries()) {
    const head = pass.items[0]?.doc;
    if (!head || landed.has(head)) {
      settled.push({ ...pass, items: pass.items.slice(1) });
      continue;
    }
    const { job, record, plan } = planned[i];
    const existing = found.get(`${head.tenantId}/${head.occurrenceKey}`);
    const theirs = existing?.pass;
    if (theirs && theirs.version === job.version) {
      // Skips to record need the tenant's budget for their reason, even if this pass charged it nothing.
      if (theirs.budgetFrom && !budgets.has(job.tenantId)) budgets.set(job.tenantId, (await deps.budget.charge(job.tenantId, 0)).perMinute);
      const replayed = build(job, theirs, singlyUntil(job, theirs.now, theirs.horizon));
      if (replayed.items[0]?.doc.occurrenceKey === head.occurrenceKey) {
        settled.push({ ...replayed, items: replayed.items.slice(1) });
        continue;
      }
    }
    // No decisions to repeat: budget skips one each, none of the found record's occurrences again,
    // and the head's own occurrence again only if the execution found there is gone since.
    const alone = build(job, record, NEVER, plan);
    const mine = existing ? alone.items.slice(1) : alone.items;
    settled.push({ ...alone, items: mine.filter((item) => !(existing && within(existing, item.nominal))) });
  }
  const rest = await deps.store.insertExecutions(settled.flatMap((p) => p.items.map((i) => i.doc)));
  const advances = settled.map((p) => p.advance);

  const inserted = [...heads.inserted, ...rest.inserted];
  const leftBehind = [...heads.leftBehind, ...rest.leftBehind];
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
  const landedAdvances = await deps.store.advanceJobs(advances, now);
  const states = await statesAfter(deps, advances, landedAdvances);
  await dropIfJobChanged(deps, jobs, states, waiting, now);
  await trimIfJobChanged(deps, jobs, states, skipped, now);
  const advanced = new Set(advances.filter((_, i) => landedAdvances?.[i]).map((a) => a.jobId.toHexString()));
  return { executions: waiting.length, states, advanced };
}

/** A job as a pass planned it; `record.budgetFrom` is filled in when its tenant's budget is charged. */
interface PlannedJob {
  job: JobDoc;
  record: PassRecord;
  plan: ReturnType<typeof planOccurrences>;
}

/** What a pass writes for one job: its executions in nominal order (the head first), and its advance. */
interface JobPass {
  items: { nominal: Date; doc: ExecutionDoc }[];
  advance: JobAdvance;
}

/** A `singly` instant later than any occurrence: every budget skip a record of its own. */
const NEVER = new Date(8.64e15);

/** Whether `at` lies in the range of occurrences a SKIPPED budget record stands for. */
function within(record: Pick<ExecutionDoc, 'scheduledFor' | 'skippedCount' | 'skippedUntil'>, at: Date): boolean {
  return !!record.skippedCount && !!record.skippedUntil && at >= record.scheduledFor && at <= record.skippedUntil;
}

/**
 * The executions one pass writes for `job` by `record` (its planOccurrences inputs and budget split;
 * a replay passes the record found on another pass's head; `planned` is planOccurrences' answer to
 * those inputs when already at hand): the occurrences it runs, those its misfire policy skips, one
 * each, and those past the budget grouped into records (`singly`: see singlyUntil). The head
 * carries the record when a record stands for several occurrences.
 */
function jobPass(
  deps: MaterialiseDeps,
  job: JobDoc,
  record: PassRecord,
  planned: PlannedJob['plan'] | undefined,
  perMinute: number,
  singly: Date | null,
  fencingToken: number,
  now: Date,
): JobPass {
  const threshold = record.missedBefore ? record.now.getTime() - record.missedBefore.getTime() : Infinity;
  const plan = planned ?? planOccurrences(job, record.now, record.horizon, threshold);
  const items: JobPass['items'] = [];
  const overBudget: PlannedOccurrence[] = [];
  for (const o of plan.occurrences) {
    if (!o.skippedReason && record.budgetFrom && o.nominal >= record.budgetFrom) {
      overBudget.push(o);
      continue;
    }
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
    items.push({
      nominal: o.nominal,
      doc: o.skippedReason ? skippedAs(doc, o.skippedReason, now) : { ...doc, status: 'QUEUED', queuedAt: now },
    });
  }
  for (const group of groupSkips(job.schedule, overBudget, singly)) {
    items.push({ nominal: group.first, doc: skipRecord(job, group, occurrenceKey(job._id, group.first), perMinute, fencingToken, now) });
  }
  items.sort((a, b) => a.nominal.getTime() - b.nominal.getTime());
  // Only decisions that grouped skips need repeating: against executions of one occurrence each,
  // another pass is safe recording its own skips one each (and most heads stay as small as before).
  const grouped = items.some((item) => (item.doc.skippedCount ?? 0) > 1);
  if (grouped) items[0] = { ...items[0], doc: { ...items[0].doc, pass: record } };
  return {
    items,
    advance: {
      jobId: job._id,
      version: job.version,
      expected: job.scheduleCursor,
      scheduleCursor: plan.scheduleCursor,
      status: plan.status,
      fencingToken,
    },
  };
}

function skippedAs(doc: ExecutionDoc, reason: string, now: Date): ExecutionDoc {
  return { ...doc, status: 'SKIPPED', reason, finishedAt: now };
}

/**
 * Charges each tenant's occurrences that would run against its scheduled budget, earliest due
 * first; each job then records as many of its own as were past it, its latest ones, from
 * `record.budgetFrom` on (so a job's skips are consecutive, and a replay can split them the same
 * way). Returns each tenant's budget per minute. Charged when materialised, up to the look-ahead
 * before they are due: in steady state each pass charges what entered the horizon, so the rate is
 * the occurrences' rate. A pass repeated after a crash charges its occurrences again (and then
 * repeats the first pass's split); that errs towards skipping, only then.
 */
async function chargeBudgets(deps: MaterialiseDeps, planned: PlannedJob[]): Promise<Map<string, number>> {
  const byTenant = new Map<string, { job: PlannedJob; due: number }[]>();
  for (const job of planned) {
    for (const o of job.plan.occurrences) {
      if (o.skippedReason) continue;
      const wanted = byTenant.get(job.job.tenantId) ?? [];
      wanted.push({ job, due: (o.dueAt ?? o.nominal).getTime() });
      byTenant.set(job.job.tenantId, wanted);
    }
  }
  const budgets = new Map<string, number>();
  for (const [tenantId, wanted] of byTenant) {
    const { allowed, perMinute } = await deps.budget.charge(tenantId, wanted.length);
    budgets.set(tenantId, perMinute);
    if (allowed >= wanted.length) continue;
    wanted.sort((a, b) => a.due - b.due);
    const over = new Map<PlannedJob, number>();
    for (const { job } of wanted.slice(allowed)) over.set(job, (over.get(job) ?? 0) + 1);
    for (const [job, count] of over) {
      const wouldRun = job.plan.occurrences.filter((o) => !o.skippedReason);
      job.record.budgetFrom = wouldRun[wouldRun.length - count].nominal;
    }
  }
  return budgets;
}

/**
 * A pass that lost the race to a resume or schedule change (its advance missed, the job has another
 * version and a new cursor) cuts its own SKIPPED records back to the occurrences before that cursor,
 * as applySchedule does with those written before it: the new state materialises them again.
 */
async function trimIfJobChanged(
  deps: MaterialiseDeps,
  jobs: JobDoc[],
  states: JobStates,
  skipped: ExecutionDoc[],
  now: Date,
): Promise<void> {
  const records = skipped.filter((e) => e.skippedCount);
  if (records.length === 0) return;
  const rewrites: SkipRewrite[] = [];
  for (const job of jobs) {
    const state = states.get(job._id.toHexString());
    if (!state || state.version === job.version || state.status !== 'ACTIVE' || !state.scheduleCursor) continue;
    for (const record of records.filter((r) => r.jobId.equals(job._id))) {
      const trim = trimSkip(job.schedule, record, state.scheduleCursor);
      if (trim) rewrites.push({ _id: record._id, skippedCount: record.skippedCount!, to: trim === 'gone' ? null : trim });
    }
  }
  await deps.store.rewriteSkips(rewrites, now);
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
