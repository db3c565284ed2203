import { newExecution, type ExecutionDoc, type PassRecord } from '../domain/execution.js';
import type { JobDoc } from '../domain/job.js';
import { applyJitter } from '../domain/schedule/jitter.js';
import type { ScheduledBudget } from '../quotas/scheduledBudget.js';
import type { JobAdvance } from '../store/schedulerStore.js';
import type { InsertedOccurrences } from '../transitions/insertOccurrences.js';
import { queuedOnInsert } from '../transitions/queueInserted.js';
import { skippedOnInsert } from '../transitions/skipOccurrences.js';
import { groupSkips, singlyUntil, skipRecord } from './budgetSkips.js';
import { exclusionRecords } from './exclusionSkips.js';
import { occurrenceKey, planOccurrences, type PlannedOccurrence } from './planOccurrences.js';

/*
 * What one materialisation pass writes for each job, and how a pass repeated from the same cursor
 * (a leader that died before advancing it, a second leader) makes the same decisions instead of its
 * own (PassRecord, docs/architecture.md "Budget skips, recorded in bulk"). Pure but for the budget
 * charge.
 */

/** A job as a pass planned it; `record.budgetFrom` is filled in when its tenant's budget is charged. */
export interface PlannedJob {
  job: JobDoc;
  record: PassRecord;
  plan: ReturnType<typeof planOccurrences>;
}

/** What a pass writes for one job: its executions in nominal order (the head first), and its advance. */
export interface JobPass {
  items: { nominal: Date; doc: ExecutionDoc }[];
  advance: JobAdvance;
}

/** What every job's pass is built with: the pass's own inputs and its tenants' budgets per minute. */
export interface PassInputs {
  /** Source of jitter. */
  random: () => number;
  budgets: Map<string, number>;
  fencingToken: number;
  now: Date;
}

/** Each job's plan and decisions up to its horizon, occurrences older than `now - misfireThresholdMs` missed (Infinity: none). */
export function planJobs(jobs: JobDoc[], now: Date, horizon: Date | ((job: JobDoc) => Date), misfireThresholdMs: number): PlannedJob[] {
  const missedBefore = Number.isFinite(misfireThresholdMs) ? new Date(now.getTime() - misfireThresholdMs) : null;
  return jobs.map((job) => {
    const until = typeof horizon === 'function' ? horizon(job) : horizon;
    const record: PassRecord = { version: job.version, now, horizon: until, missedBefore, budgetFrom: null };
    return { job, record, plan: planOccurrences(job, now, until, misfireThresholdMs) };
  });
}

/** The pass of a planned job by its own decisions, its skips grouped as its reschedule allows (singlyUntil). */
export function firstPass(inputs: PassInputs, { job, record, plan }: PlannedJob): JobPass {
  return jobPass(inputs, job, record, singlyUntil(job, record.now, record.horizon), plan);
}

/**
 * What each pass writes after its head, now that the heads' insert answered (`heads`). Where the
 * head landed, the pass owns its decisions. Where an execution was already there, a pass repeats
 * the decisions found on it (same inputs, same budget split) instead of its own; one that finds an
 * execution without them, or from another version of the job, records its budget skips one each,
 * so that they collide key by key.
 */
export async function afterHeads(
  budget: Pick<ScheduledBudget, 'charge'>,
  inputs: PassInputs,
  planned: PlannedJob[],
  passes: JobPass[],
  heads: InsertedOccurrences,
): Promise<JobPass[]> {
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
      if (theirs.budgetFrom && !inputs.budgets.has(job.tenantId))
        inputs.budgets.set(job.tenantId, (await budget.charge(job.tenantId, 0)).perMinute);
      const replayed = jobPass(inputs, job, theirs, singlyUntil(job, theirs.now, theirs.horizon));
      if (replayed.items[0]?.doc.occurrenceKey === head.occurrenceKey) {
        settled.push({ ...replayed, items: replayed.items.slice(1) });
        continue;
      }
    }
    // No decisions to repeat: budget skips one each, none of the found record's occurrences again,
    // and the head's own occurrence again only if the execution found there is gone since.
    const alone = jobPass(inputs, job, record, NEVER, plan);
    const mine = existing ? alone.items.slice(1) : alone.items;
    settled.push({ ...alone, items: mine.filter((item) => !(existing && within(existing, item.nominal))) });
  }
  return settled;
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
 * each, and those past the budget or inside an exclusion window grouped into records (`singly`: see
 * singlyUntil; exclusionSkips.ts). The head
 * carries the record when a record stands for several occurrences.
 */
function jobPass(inputs: PassInputs, job: JobDoc, record: PassRecord, singly: Date | null, planned?: PlannedJob['plan']): JobPass {
  const { fencingToken, now } = inputs;
  const threshold = record.missedBefore ? record.now.getTime() - record.missedBefore.getTime() : Infinity;
  const plan = planned ?? planOccurrences(job, record.now, record.horizon, threshold);
  const items: JobPass['items'] = [];
  const overBudget: PlannedOccurrence[] = [];
  const excluded: PlannedOccurrence[] = [];
  for (const o of plan.occurrences) {
    if (o.excludedBy !== undefined) {
      excluded.push(o);
      continue;
    }
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
        scheduledFor: o.dueAt ?? applyJitter(o.nominal, job.schedule.jitterSeconds, inputs.random),
        maxAttempts: job.retryPolicy.maxAttempts,
        fencingToken,
      },
      now,
    );
    items.push({ nominal: o.nominal, doc: o.skippedReason ? skippedOnInsert(doc, o.skippedReason, now) : queuedOnInsert(doc, now) });
  }
  const perMinute = inputs.budgets.get(job.tenantId) ?? Infinity;
  for (const group of groupSkips(job.schedule, overBudget, singly)) {
    items.push({ nominal: group.first, doc: skipRecord(job, group, occurrenceKey(job._id, group.first), perMinute, fencingToken, now) });
  }
  items.push(...exclusionRecords(job, excluded, singly, fencingToken, now));
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

/**
 * Charges each tenant's occurrences that would run against its scheduled budget, earliest due
 * first; each job then records as many of its own as were past it, its latest ones, from
 * `record.budgetFrom` on (so a job's skips are consecutive, and a replay can split them the same
 * way). Returns each tenant's budget per minute. Charged when materialised, up to the look-ahead
 * before they are due: in steady state each pass charges what entered the horizon, so the rate is
 * the occurrences' rate. A pass repeated after a crash charges its occurrences again (and then
 * repeats the first pass's split); that errs towards skipping, only then.
 */
export async function chargeBudgets(budget: Pick<ScheduledBudget, 'charge'>, planned: PlannedJob[]): Promise<Map<string, number>> {
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
    const { allowed, perMinute } = await budget.charge(tenantId, wanted.length);
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
