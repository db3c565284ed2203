import { documents, type Job } from '../api/client.js';
import type { Schedule } from '../api/types.js';
import { Card, ConfirmButton, ErrorBanner, Labels, StatusBadge, When } from '../components.js';
import { ExecutionsTable } from '../executionsTable.js';
import { BackfillForm } from '../backfillForm.js';
import { ChangeHistory } from '../changeHistory.js';
import { absolute, cronFallback, offsetChanges, offsetOf, scheduleInWords } from '../format.js';
import { navigate, useAction, useLive, useNow, useQuery } from '../hooks.js';
import { useSession } from '../session.js';
import { useState } from 'preact/hooks';

/** One job: actions, its runs (and upcoming executions), settings, its next 10 occurrences and its change history. */
export function JobPage({ id }: { id: string }) {
  const { client, canWrite } = useSession();
  const now = useNow();
  const answer = useQuery(documents.JobDocument, { id });
  useLive((event) => event.execution.jobId === id && answer.reload());
  const job = answer.data?.job;
  // Bumped by each action of this page, so the change history shows the change it made.
  const [changes, setChanges] = useState(0);
  const changed = () => setChanges((n) => n + 1);
  const action = useAction(
    (change: () => Promise<unknown>) => change(),
    () => {
      answer.reload();
      changed();
    },
  );
  const trigger = useAction(() => client.triggerJob(id), changed);
  const remove = useAction(() => client.deleteJob(id), () => navigate('/jobs'));

  if (answer.error && !job) return <main class="page"><ErrorBanner error={answer.error} /></main>;
  if (!answer.data) return <main class="page muted">Loading…</main>;
  if (!job) return <main class="page"><div class="banner banner-error">This job does not exist (or was deleted).</div></main>;

  const busy = action.busy || trigger.busy || remove.busy;
  return (
    <main class="page">
      <nav class="crumbs">
        <a href="#/jobs">Jobs</a> / <span>{job.name}</span>
      </nav>
      <header class="page-head">
        <div>
          <h1>
            {job.name} <StatusBadge status={job.status} />
          </h1>
          {job.description && <p class="muted">{job.description}</p>}
          <Labels labels={job.labels} />
        </div>
        {canWrite && (
          <div class="actions" data-testid="job-actions">
            <button class="btn btn-primary" disabled={busy} onClick={() => void trigger.perform()}>
              ▶ Trigger now
            </button>
            {job.status === 'ACTIVE' && (
              <button class="btn" disabled={busy} onClick={() => void action.perform(() => client.pauseJob(id))}>
                ❚❚ Pause
              </button>
            )}
            {job.status === 'PAUSED' && (
              <button class="btn" disabled={busy} onClick={() => void action.perform(() => client.resumeJob(id))}>
                ▶ Resume
              </button>
            )}
            <a class="btn" href={`#/jobs/${job.id}/edit`}>
              Edit
            </a>
            <ConfirmButton label="Delete" question="Delete this job? Its history is kept." busy={busy} onConfirm={() => void remove.perform()} />
          </div>
        )}
      </header>
      <ErrorBanner error={action.error ?? trigger.error ?? remove.error ?? answer.error} />
      {/* Runs first: what happened is what a job's page is opened for; the settings change seldom. */}
      <Card title="Executions">
        <ExecutionsTable jobId={job.id} showJob={false} />
      </Card>
      <div class="grid-2">
        <Card title="Settings">
          <Settings job={job} now={now} />
        </Card>
        <Card title="Next 10 occurrences">
          {job.status === 'ACTIVE' ? <Occurrences schedule={job.schedule} from={job.nextRunAt} now={now} /> : <p class="muted">None while the job is {job.status.toLowerCase()}.</p>}
        </Card>
      </div>
      {canWrite && (
        <Card title="Backfill past occurrences">
          <BackfillForm jobId={job.id} timeZone={job.schedule.timezone} onCreated={answer.reload} />
        </Card>
      )}
      <Card title="Change history">
        <ChangeHistory key={changes} jobId={job.id} />
      </Card>
    </main>
  );
}

function Settings({ job, now }: { job: Job; now: number }) {
  const s = job.schedule;
  const target = job.target.__typename === 'HttpTarget' ? `${job.target.method} ${job.target.url}` : `handler “${job.target.handler}”`;
  const r = job.retryPolicy;
  return (
    <dl class="settings">
      <dt>Schedule</dt>
      <dd data-testid="schedule">
        <ScheduleText schedule={s} />
      </dd>
      <dt>Time zone</dt>
      <dd>{s.timezone}</dd>
      {s.startAt && (
        <>
          <dt>Starts</dt>
          <dd>{absolute(s.startAt, s.timezone)}</dd>
        </>
      )}
      {s.endAt && (
        <>
          <dt>Ends</dt>
          <dd>{absolute(s.endAt, s.timezone)}</dd>
        </>
      )}
      {s.jitterSeconds > 0 && (
        <>
          <dt>Jitter</dt>
          <dd>up to {s.jitterSeconds} s</dd>
        </>
      )}
      <dt>Next run</dt>
      <dd>
        <When iso={job.nextRunAt} now={now} timeZone={s.timezone} />
      </dd>
      <dt>Last run</dt>
      <dd>
        <When iso={job.lastRunAt} now={now} timeZone={s.timezone} />
      </dd>
      {job.externalId && (
        <>
          <dt>External id</dt>
          <dd class="break" data-testid="external-id">
            {job.externalId}
          </dd>
        </>
      )}
      <dt>Target</dt>
      <dd class="break">{target}</dd>
      <dt>Workload</dt>
      <dd>{job.workload.replace('_', '-').toLowerCase()}</dd>
      <dt>Timeout</dt>
      <dd>{job.timeoutSeconds} s per attempt</dd>
      <dt>Retries</dt>
      <dd>
        {r.maxAttempts} attempts, backoff {r.initialBackoffSeconds} s × {r.backoffMultiplier} up to {r.maxBackoffSeconds} s
        {r.nonRetryableStatuses && `; not retried: ${r.nonRetryableStatuses.join(', ') || 'none (every status is retried)'}`}
      </dd>
      <dt>Overlap</dt>
      <dd>{job.overlapPolicy.replace('_', ' ').toLowerCase()}</dd>
      <dt>Misfire</dt>
      <dd>{job.misfirePolicy.replace('_', ' ').toLowerCase()}</dd>
      {job.flowControl && (
        <>
          <dt>Flow control</dt>
          <dd class="break" data-testid="flow-control">
            {[
              job.flowControl.maxConcurrent !== null && job.flowControl.maxConcurrent !== undefined && `${job.flowControl.maxConcurrent} at once`,
              job.flowControl.maxPerMinute !== null && job.flowControl.maxPerMinute !== undefined && `${job.flowControl.maxPerMinute} a minute`,
            ]
              .filter(Boolean)
              .join(', ')}{' '}
            per key <span class="mono">{job.flowControl.key}</span>
            {job.flowControl.keyFromTarget ? " (the target's)" : ''}
          </dd>
        </>
      )}
      {job.payload !== null && job.payload !== undefined && (
        <>
          <dt>Payload</dt>
          <dd>
            <pre>{JSON.stringify(job.payload, null, 2)}</pre>
          </dd>
        </>
      )}
    </dl>
  );
}

/** A cron schedule in words with its expression beside it, the expression once when no words fit. */
function ScheduleText({ schedule }: { schedule: Schedule }) {
  const words = scheduleInWords(schedule);
  if (!schedule.cron) return <>{words}</>;
  if (words === cronFallback(schedule.cron)) {
    return (
      <>
        cron <code>{schedule.cron}</code>
      </>
    );
  }
  return (
    <>
      {words} <code>{schedule.cron}</code>
    </>
  );
}

/**
 * The instant a job's occurrence list starts at: its nextRunAt, so the list shows the instants the
 * scheduler uses. An interval counts from its own grid, not from the moment of asking: previewSchedule
 * starts an interval at startAt when that is still ahead, else one interval after now, so an overdue
 * nextRunAt is moved along its grid past `now` first.
 */
function previewStart(schedule: Schedule, nextRunAt: string | null, now: number): string | null {
  if (!nextRunAt || schedule.kind === 'ONCE') return schedule.startAt;
  let at = Date.parse(nextRunAt);
  const step = (schedule.intervalSeconds ?? 0) * 1000;
  if (schedule.kind === 'INTERVAL' && step > 0 && at <= now) at += Math.floor((now - at) / step + 1) * step;
  return new Date(at).toISOString();
}

/**
 * The next occurrences from previewSchedule, from the job's next run (see previewStart), in the
 * schedule's zone; a change of UTC offset (DST) is marked.
 */
export function Occurrences({ schedule, from, now, count = 10 }: { schedule: Schedule; from: string | null; now: number; count?: number }) {
  const input = {
    cron: schedule.cron,
    timezone: schedule.timezone,
    intervalSeconds: schedule.intervalSeconds,
    runAt: schedule.runAt,
    startAt: previewStart(schedule, from, now),
    endAt: schedule.endAt,
  };
  const preview = useQuery(documents.PreviewScheduleDocument, { schedule: input, count });
  return <OccurrenceList times={preview.data?.previewSchedule ?? null} timeZone={schedule.timezone} error={preview.error?.message ?? null} />;
}

export function OccurrenceList({ times, timeZone, error }: { times: { at: string; local: string }[] | null; timeZone: string; error: string | null }) {
  if (error) return <p class="field-error">{error}</p>;
  if (!times) return <p class="muted">…</p>;
  if (times.length === 0) return <p class="muted">No further occurrence.</p>;
  const changes = offsetChanges(times.map((t) => t.local));
  return (
    <ol class="occurrences" data-testid="occurrences">
      {times.map((t, i) => (
        <li key={t.at} class={changes.has(i) ? 'dst' : ''} data-at={t.at}>
          <span>{absolute(t.at, timeZone)}</span>
          <small class="muted">UTC{offsetOf(t.local).replace('Z', '+00:00')}</small>
          {changes.has(i) && <span class="badge badge-dst" title="The UTC offset changes before this occurrence">DST change</span>}
        </li>
      ))}
    </ol>
  );
}
