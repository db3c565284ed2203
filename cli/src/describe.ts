import type { Execution, Job } from '@kairos/client';

/** A schedule in a few words: "cron 0 9 * * 1-5 (Europe/Paris)", "every 10s", "once at ...". */
export function scheduleText(job: Job): string {
  const s = job.schedule;
  if (s.kind === 'CRON') return `cron ${s.cron} (${s.timezone})`;
  if (s.kind === 'INTERVAL') return `every ${s.intervalSeconds}s`;
  return `once at ${s.runAt}`;
}

export function targetText(job: Job): string {
  return job.target.__typename === 'HttpTarget' ? `${job.target.method} ${job.target.url}` : `handler ${job.target.handler}`;
}

export function jobRow(job: Job): Record<string, unknown> {
  return { id: job.id, name: job.name, status: job.status, schedule: scheduleText(job), target: targetText(job), 'next run': job.nextRunAt };
}

export function jobDetails(job: Job): Record<string, unknown> {
  return {
    id: job.id,
    name: job.name,
    description: job.description,
    status: job.status,
    schedule: scheduleText(job),
    target: targetText(job),
    payload: job.payload,
    workload: job.workload,
    'timeout (s)': job.timeoutSeconds,
    'max attempts': job.retryPolicy.maxAttempts,
    overlap: job.overlapPolicy,
    misfire: job.misfirePolicy,
    'next run': job.nextRunAt,
    'last run': job.lastRunAt,
    created: job.createdAt,
    updated: job.updatedAt,
  };
}

export function executionRow(e: Execution): Record<string, unknown> {
  return { id: e.id, job: e.job?.name ?? e.jobId, status: e.status, trigger: e.trigger, 'scheduled for': e.scheduledFor, attempt: `${e.attempt}/${e.maxAttempts}`, 'duration ms': e.durationMs };
}

export function executionDetails(e: Execution): Record<string, unknown> {
  return {
    id: e.id,
    job: e.job ? `${e.job.name} (${e.job.id})` : e.jobId,
    status: e.status,
    trigger: e.trigger,
    'scheduled for': e.scheduledFor,
    queued: e.queuedAt,
    started: e.startedAt,
    finished: e.finishedAt,
    'duration ms': e.durationMs,
    'start lag ms': e.startLagMs,
    attempt: `${e.attempt}/${e.maxAttempts}`,
    'next attempt': e.nextAttemptAt,
    error: e.error,
    reason: e.reason,
    result: e.result,
  };
}
