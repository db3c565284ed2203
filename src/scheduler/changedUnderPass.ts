import type { ExecutionDoc } from '../domain/execution.js';
import type { JobDoc } from '../domain/job.js';
import type { JobAdvance, SchedulerStore } from '../store/schedulerStore.js';
import type { SkipRewrite } from '../store/skipRewrites.js';
import { UNSTARTED, cancelWaiting, type CancelWaitingDeps } from '../transitions/cancelWaiting.js';
import { trimSkip } from './budgetSkips.js';

/*
 * After a pass's advance: the jobs' states, and what the pass takes back of its own writes for a
 * job that a pause, delete, resume or schedule change reached first.
 */

/** The jobs' states after a pass's advance (the sweep settles the due index from them). */
export type JobStates = Awaited<ReturnType<SchedulerStore['jobStates']>>;

/**
 * The jobs' states after their advance. One that landed (a compare-and-set on the version the pass
 * read) says the state itself; only the jobs whose advance missed are read back.
 */
export async function statesAfter(
  store: Pick<SchedulerStore, 'jobStates'>,
  advances: JobAdvance[],
  landed: boolean[] | null,
): Promise<JobStates> {
  const states: JobStates = new Map();
  advances.forEach((a, i) => {
    if (landed?.[i]) states.set(a.jobId.toHexString(), { version: a.version, status: a.status, scheduleCursor: a.scheduleCursor });
  });
  const missed = advances.filter((a) => !states.has(a.jobId.toHexString()));
  if (missed.length > 0) for (const [id, state] of await store.jobStates(missed.map((a) => a.jobId))) states.set(id, state);
  return states;
}

export const STALE_REASON = 'the job was paused or deleted while this occurrence was being materialised';

/**
 * A pause or delete that lands while a pass is under way cancels the job's waiting executions
 * before this pass inserted its own, which would then run for a job that should not run. Such
 * changes bump the job's version (sweeps do not, so a second leader never trips this): executions
 * this pass queued for a job now changed and no longer ACTIVE (or gone) are cancelled, through the
 * same transition as the API's cancels. A job that was updated and is still ACTIVE keeps them: an
 * occurrence its new schedule shares must not be lost, and at-least-once prefers an extra run of an
 * old occurrence to a missed one.
 */
export async function dropIfJobChanged(
  deps: Omit<CancelWaitingDeps, 'store'> & { store: Pick<SchedulerStore, 'cancelWaiting'> },
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
  await cancelWaiting(deps, { statuses: UNSTARTED, executionIds: stale.map((e) => e._id) }, STALE_REASON, now);
}

/**
 * A pass that lost the race to a resume or schedule change (its advance missed, the job has another
 * version and a new cursor) cuts its own SKIPPED records back to the occurrences before that cursor,
 * as applySchedule does with those written before it: the new state materialises them again.
 */
export async function trimIfJobChanged(
  store: Pick<SchedulerStore, 'rewriteSkips'>,
  jobs: JobDoc[],
  states: JobStates,
  inserted: ExecutionDoc[],
  now: Date,
): Promise<void> {
  const records = inserted.filter((e) => e.skippedCount);
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
  await store.rewriteSkips(rewrites, now);
}
