import { ObjectId } from 'mongodb';
import { newExecution, type ExecutionDoc } from '../domain/execution.js';
import type { JobDoc, JobStatus } from '../domain/job.js';
import { nextAfter } from '../domain/schedule/nextOccurrences.js';
import { applyJitter } from '../domain/schedule/jitter.js';
import type { ExecutionEventBus } from '../events/executionEventBus.js';
import { publishStatusEvents, statusEvent } from '../events/statusEvent.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';
import type { JobAdvance, SchedulerStore } from '../store/schedulerStore.js';
import type { Logger } from '../logger.js';

/** At most this many occurrences of one job are materialised per pass; the rest wait for the next pass. */
export const MAX_OCCURRENCES_PER_JOB = 100;

export interface MaterialiseDeps {
  store: SchedulerStore;
  queues: ExecutionQueues;
  events: ExecutionEventBus;
  logger: Logger;
  /** Source of jitter; Math.random in production. */
  random: () => number;
}

/** The nominal occurrences of `job` from its nextRunAt up to `horizon`, and where its schedule goes next. */
export function planOccurrences(job: JobDoc, horizon: Date): { occurrences: Date[]; nextRunAt: Date | null; status: JobStatus } {
  const occurrences: Date[] = [];
  let cursor = job.nextRunAt;
  while (cursor && cursor.getTime() <= horizon.getTime() && occurrences.length < MAX_OCCURRENCES_PER_JOB) {
    occurrences.push(cursor);
    cursor = nextAfter(job.schedule, cursor);
  }
  return { occurrences, nextRunAt: cursor, status: cursor ? job.status : 'COMPLETED' };
}

export function occurrenceKey(jobId: ObjectId, nominal: Date): string {
  return `${jobId.toHexString()}@${nominal.toISOString()}`;
}

/**
 * Materialises the due occurrences of `jobs` (DESIGN.md step 3): insert executions (a duplicate
 * occurrence key means already done), mark them QUEUED, enqueue each with a delay equal to its
 * time minus now, then advance each job's nextRunAt with a compare-and-set on the old value.
 * Every step is idempotent, so a crash between steps or a second leader never loses or doubles an
 * occurrence; `reconcile` re-enqueues what a crash left QUEUED. Executions are marked QUEUED before
 * they are enqueued so that a worker never sees one that is still SCHEDULED, keeping events in order.
 */
export async function materialise(
  deps: MaterialiseDeps,
  jobs: JobDoc[],
  now: Date,
  horizon: Date,
  fencingToken: number,
): Promise<{ executions: number }> {
  const docs: ExecutionDoc[] = [];
  const advances: JobAdvance[] = [];
  for (const job of jobs) {
    const plan = planOccurrences(job, horizon);
    for (const nominal of plan.occurrences) {
      docs.push(
        newExecution(
          {
            tenantId: job.tenantId,
            jobId: job._id,
            occurrenceKey: occurrenceKey(job._id, nominal),
            trigger: 'SCHEDULE',
            workload: job.workload,
            scheduledFor: applyJitter(nominal, job.schedule.jitterSeconds, deps.random),
            maxAttempts: job.retryPolicy.maxAttempts,
            fencingToken,
          },
          now,
        ),
      );
    }
    advances.push({ jobId: job._id, expected: job.nextRunAt, nextRunAt: plan.nextRunAt, status: plan.status, fencingToken });
  }

  const waiting = await deps.store.insertExecutions(docs);
  await deps.store.markQueued(waiting.map((e) => e._id), now);
  await publishStatusEvents(
    deps.events,
    deps.logger,
    waiting.flatMap((e) => [statusEvent(e, null, 'SCHEDULED', now), statusEvent(e, 'SCHEDULED', 'QUEUED', now)]),
  );
  await deps.queues.enqueue(
    waiting.map((e) => ({ executionId: e._id.toHexString(), tenantId: e.tenantId, workload: e.workload, dueAt: e.scheduledFor })),
  );
  await deps.store.advanceJobs(advances, now);
  return { executions: waiting.length };
}
