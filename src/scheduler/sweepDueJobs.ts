import { ObjectId } from 'mongodb';
import type { MaterialiseDeps } from './materialise.js';
import { materialise } from './materialise.js';
import { errorMessage } from '../logger.js';
import type { JobDoc } from '../domain/job.js';
import { staggerFraction } from './stagger.js';

export interface SweepOptions {
  /** A job is due when its next occurrence not yet materialised falls within this much of now (default 30 s). */
  lookAheadMs: number;
  /**
   * How much further than the look-ahead a due job is materialised, at most: each job between half
   * and all of it (staggerFraction of its id), so jobs created together do not all advance in the
   * same pass. Default: the look-ahead again, so a job due every second has its cursor advanced (one
   * statement) every 15 to 30 s instead of every pass.
   */
  extraAheadMs?: number;
  /** Jobs read and materialised per batch. Default 100 (larger batches stalled FerretDB 1.24). */
  batchSize?: number;
  /** Batches per sweep at most, so one sweep cannot run unbounded; the rest waits a second. Default 50. */
  maxBatches?: number;
  /** Occurrences older than now minus this were missed and follow the misfire policy. */
  misfireThresholdMs: number;
  /**
   * A job written less than this ago (its `updatedAt`) is left to a later pass. The API materialises
   * the near-term occurrences of a job it creates, updates or resumes itself, and a pass that read
   * the job before that landed inserted the same occurrences again (each duplicate one more read on
   * FerretDB, a tenant creating jobs fast kept the sweep doing so). A create that failed before its
   * materialisation is swept this much later. Default 2 s.
   */
  apiWriteGraceMs?: number;
}

/**
 * One pass of the leader's `sweep-due-jobs`: takes the jobs due before now + look-ahead from the
 * due index (Redis; see DueIndex), in batches, reads each by `_id` from MongoDB, materialises the
 * ones MongoDB says are due up to their share of `extraAheadMs` past the look-ahead (so a frequent job
 * costs one advance per that time, not one per pass), and settles their entries where their cursors now are. Its cost grows
 * with the jobs due, not with the jobs stored. When the index is not built (Redis lost it) the
 * rebuild starts in the background and this pass sweeps what is there already.
 */
export async function sweepDueJobs(
  deps: MaterialiseDeps,
  now: Date,
  fencingToken: number,
  options: SweepOptions,
): Promise<{ jobs: number; executions: number; entries: number; behindMs: number }> {
  const batchSize = options.batchSize ?? 100;
  const graceMs = options.apiWriteGraceMs ?? 2000;
  const horizon = new Date(now.getTime() + options.lookAheadMs);
  const extraMs = options.extraAheadMs ?? options.lookAheadMs;
  const until = (job: JobDoc) => new Date(horizon.getTime() + extraMs * (0.5 + staggerFraction(job._id) / 2));
  let jobs = 0;
  let executions = 0;
  let entries = 0;
  // How far behind this pass found the schedule: now minus the earliest cursor of a due job (metrics).
  let behindMs = 0;
  // Jobs within their grace (apiWriteGraceMs), left where they are: later batches of this pass look past them.
  const inGrace = new Set<string>();
  for (let batch = 0; batch < (options.maxBatches ?? 50); batch++) {
    const asked = batchSize + inGrace.size;
    const index = await deps.dueIndex.due(horizon, asked);
    if (!index.built) {
      void deps.dueIndex
        .rebuild(() => deps.store.activeCursors())
        .then((count) => deps.logger.info('rebuilt the due index from MongoDB', { jobs: count }))
        .catch((error: unknown) =>
          deps.logger.warn('could not rebuild the due index; retrying next sweep', { error: errorMessage(error) }),
        );
    }
    const batchEntries = index.entries.filter((e) => !inGrace.has(e.jobId));
    if (batchEntries.length === 0) break;
    entries += batchEntries.length;
    const loaded = await deps.store.findJobsByIds(batchEntries.map((e) => new ObjectId(e.jobId)));
    const isDue = (j: (typeof loaded)[number]) => j.status === 'ACTIVE' && j.scheduleCursor !== null && j.scheduleCursor <= horizon;
    // Either side of now: another process's clock may run a little ahead of the leader's.
    const justWritten = (j: (typeof loaded)[number]) => Math.abs(now.getTime() - (j.updatedAt?.getTime() ?? 0)) < graceMs;
    for (const j of loaded) if (isDue(j) && justWritten(j)) inGrace.add(j._id.toHexString());
    const due = loaded.filter((j) => isDue(j) && !inGrace.has(j._id.toHexString()));
    // Each entry goes where MongoDB has its job (or out): jobs not due as just read; the due ones
    // as their advance left them (read back only where it missed); one in its grace stays (early,
    // never late). On FerretDB every statement
    // costs about as much as a write, so statements per due job are what the sweep's cost is made of there.
    const states = new Map(loaded.filter((j) => !isDue(j)).map((j) => [j._id.toHexString(), j]));
    for (const j of due) behindMs = Math.max(behindMs, now.getTime() - j.scheduleCursor!.getTime());
    if (due.length > 0) {
      const result = await materialise(deps, due, now, until, fencingToken, options.misfireThresholdMs);
      jobs += due.length;
      executions += result.executions;
      for (const [id, state] of result.states) states.set(id, state as (typeof loaded)[number]);
    }
    await deps.dueIndex.settle(
      batchEntries
        .filter((entry) => !inGrace.has(entry.jobId))
        .map((entry) => {
          const state = states.get(entry.jobId);
          return { entry, at: state?.status === 'ACTIVE' ? state.scheduleCursor : null };
        }),
    );
    if (index.entries.length < asked) break;
  }
  return { jobs, executions, entries, behindMs };
}
