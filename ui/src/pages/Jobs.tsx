import { useEffect, useRef, useState } from 'preact/hooks';
import { documents, type JobStatus } from '../api/client.js';
import { ExecutionsDocument, JobsDocument } from '../api/generated.js';
import type { JobRow } from '../api/types.js';
import { LagHistogram, Timeline } from '../charts.js';
import { Card, ErrorBanner, Labels, Pager, StatusBadge, When, usePaging } from '../components.js';
import { duration, parseLabelsText, scheduleInWords, successRate } from '../format.js';
import { navigate, useDebounced, useLive, useNow, useQuery } from '../hooks.js';
import { useSession } from '../session.js';

const PAGE_SIZE = 20;
/** How many recent runs (started or finished) a job row's success rate is taken from: the Jobs query's (operations.graphql). */
const RECENT_EXECUTIONS = 20;

/** The landing page: how the last hour went, then every job. */
export function Jobs() {
  const { canWrite } = useSession();
  const now = useNow();
  const [status, setStatus] = useState<JobStatus | ''>('');
  const [prefix, setPrefix] = useState('');
  const namePrefix = useDebounced(prefix.trim(), 250);
  const [labelText, setLabelText] = useState('');
  const labelFilter = useDebounced(labelText.trim(), 250);
  const paging = usePaging(PAGE_SIZE);
  useEffect(() => paging.reset(), [status, namePrefix, labelFilter]);
  const labels = parseLabelsText(labelFilter);
  const filter = { ...(status ? { statuses: [status] } : {}), ...(namePrefix ? { namePrefix } : {}), ...(labels.length > 0 ? { labels } : {}) };
  const filtered = Boolean(namePrefix || status || labels.length > 0);
  const jobs = useQuery(JobsDocument, { ...paging.page, filter });
  useRefreshOnEvents(jobs.reload);
  // Jobs created or changed elsewhere emit no execution event: look again now and then.
  useEffect(() => {
    const timer = setInterval(jobs.reload, 5000);
    return () => clearInterval(timer);
  }, [jobs.reload]);
  const connection = jobs.data?.jobs;

  return (
    <main class="page">
      <Overview now={now} />
      <Card
        title={
          <>
            Jobs {connection && <span class="count">{connection.totalCount}</span>}
          </>
        }
        actions={
          canWrite && (
            <a class="btn btn-primary" href="#/jobs/new">
              + New job
            </a>
          )
        }
      >
        <div class="filters">
          <input type="search" placeholder="Name starts with…" aria-label="Name prefix" value={prefix} onInput={(e) => setPrefix(e.currentTarget.value)} />
          <input
            type="search"
            placeholder="Labels: team=payments, env=prod"
            aria-label="Labels"
            value={labelText}
            onInput={(e) => setLabelText(e.currentTarget.value)}
          />
          <select aria-label="Status" value={status} onChange={(e) => setStatus(e.currentTarget.value as JobStatus | '')}>
            <option value="">All statuses</option>
            <option value="ACTIVE">Active</option>
            <option value="PAUSED">Paused</option>
            <option value="COMPLETED">Completed</option>
          </select>
        </div>
        <ErrorBanner error={jobs.error} />
        <div class="table-wrap">
          <table class="table" data-testid="jobs-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Schedule</th>
                <th>Status</th>
                <th>Next run</th>
                <th>Last outcome</th>
                <th title={`Over the last ${RECENT_EXECUTIONS} runs`}>Success</th>
              </tr>
            </thead>
            <tbody>
              {connection?.edges.map(({ node }) => <JobLine key={node.id} job={node} now={now} />)}
              {connection?.edges.length === 0 && (
                <tr>
                  <td colSpan={6} class="muted empty">
                    {filtered ? 'No job matches.' : 'No jobs yet.'} {canWrite && !filtered && <a href="#/jobs/new">Create the first one.</a>}
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
        {connection && (
          <Pager
            hasPrevious={connection.pageInfo.hasPreviousPage}
            hasNext={connection.pageInfo.hasNextPage}
            onPrevious={() => paging.previous(connection.pageInfo.startCursor)}
            onNext={() => paging.next(connection.pageInfo.endCursor)}
          />
        )}
      </Card>
    </main>
  );
}

function JobLine({ job, now }: { job: JobRow; now: number }) {
  const last = job.lastExecution;
  const rate = successRate(job.executions.edges.map((e) => e.node.status));
  return (
    <tr class="clickable" onClick={() => navigate(`/jobs/${job.id}`)} data-job-name={job.name}>
      <td>
        <a href={`#/jobs/${job.id}`} class="strong">
          {job.name}
        </a>
        <Labels labels={job.labels} />
      </td>
      <td>
        {scheduleInWords(job.schedule)}
        {job.schedule.kind === 'CRON' && <small class="muted block">{job.schedule.timezone}</small>}
      </td>
      <td>
        <StatusBadge status={job.status} />
      </td>
      <td>
        <When iso={job.nextRunAt} now={now} timeZone={job.schedule.timezone} />
      </td>
      <td data-testid="last-outcome">{last ? <StatusBadge status={last.status} /> : <span class="muted">—</span>}</td>
      <td>
        {rate === null ? (
          <span class="muted">—</span>
        ) : (
          <span class="rate" data-testid="success-rate" title={`${Math.round(rate * 100)}% of the last finished runs succeeded`}>
            <span class="rate-bar">
              <span style={{ width: `${Math.round(rate * 100)}%` }} />
            </span>
            {Math.round(rate * 100)}%
          </span>
        )}
      </td>
    </tr>
  );
}

/** Figures and charts over the last hour. */
function Overview({ now }: { now: number }) {
  // Re-anchored each minute (not each second) so the queries are not re-sent every tick.
  const minute = Math.floor(now / 60_000) * 60_000;
  const since = new Date(minute - 3_600_000).toISOString();
  const stats = useQuery(documents.ExecutionStatsDocument, { since });
  // Runs only: occurrences not started yet sort first and would take a frequent job's share of the 100.
  const recent = useQuery(ExecutionsDocument, { first: 100, filter: { scheduledAfter: since, phase: 'HISTORY' } });
  useRefreshOnEvents(() => {
    stats.reload();
    recent.reload();
  });
  const s = stats.data?.executionStats;
  const count = (status: string) => s?.byStatus.find((b) => b.status === status)?.count ?? 0;
  const executions = recent.data?.executions.edges.map((e) => e.node) ?? [];
  return (
    <>
      <div class="figures">
        <Figure label="Executions, last hour" value={s ? String(s.total) : '…'} />
        <Figure label="Succeeded" value={s ? String(count('SUCCEEDED')) : '…'} tone="good" />
        <Figure label="Failed" value={s ? String(count('FAILED')) : '…'} tone={count('FAILED') > 0 ? 'bad' : undefined} />
        <Figure label="Start lag p50 / p99" value={s ? `${duration(s.startLagMsP50)} / ${duration(s.startLagMsP99)}` : '…'} />
      </div>
      <div class="grid-2">
        <Card title="Last hour" class="chart-card">
          <Timeline executions={executions} now={minute + 60_000} />
          <p class="legend">
            <i class="swatch lag" /> start lag <i class="swatch succeeded" /> succeeded <i class="swatch failed" /> failed <i class="swatch running" /> running
          </p>
        </Card>
        <Card title="Start lag" class="chart-card">
          <LagHistogram executions={executions} />
        </Card>
      </div>
    </>
  );
}

function Figure({ label, value, tone }: { label: string; value: string; tone?: 'good' | 'bad' }) {
  return (
    <div class={`figure ${tone ?? ''}`}>
      <span class="figure-value">{value}</span>
      <span class="figure-label">{label}</span>
    </div>
  );
}

/** Live events make `reload` run, at most every 2 s, so a busy tenant does not flood the API. */
function useRefreshOnEvents(reload: () => void): void {
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);
  useLive(() => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      reload();
    }, 2000);
  });
}
