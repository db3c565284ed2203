import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { ExecutionPhase, ExecutionStatus } from './api/client.js';
import { ExecutionsDocument } from './api/generated.js';
import type { ExecutionSummary } from './api/types.js';
import { ErrorBanner, Pager, StatusBadge, When, usePaging } from './components.js';
import { duration } from './format.js';
import { navigate, useLive, useNow, useQuery } from './hooks.js';
import { BulkRetryButton } from './bulkRetry.js';
import { useSession } from './session.js';

const PAGE_SIZE = 20;
/** The statuses of each view: started or finished (HISTORY), or not started yet (UPCOMING), as the API's ExecutionPhase. */
const HISTORY_STATUSES: ExecutionStatus[] = ['RUNNING', 'RETRYING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'SKIPPED'];
const UPCOMING_STATUSES: ExecutionStatus[] = ['SCHEDULED', 'QUEUED'];

const byScheduledFor = (a: ExecutionSummary, b: ExecutionSummary) => Date.parse(a.scheduledFor) - Date.parse(b.scheduledFor);

/**
 * Executions that stay live, in two views. History (the default): the runs that have started or
 * finished, newest first, a page at a time. Upcoming: the soonest occurrences not started yet, soonest
 * first. Without the split a frequent job's first page was all occurrences to come (they sort first,
 * newest first) and no run that happened. A row changes in place when its event arrives, moves to the
 * other view when it starts, and a new one appears in its place while the first page is shown.
 */
export function ExecutionsTable({ jobId, showJob = true }: { jobId?: string; showJob?: boolean }) {
  const [phase, setPhase] = useState<ExecutionPhase>('HISTORY');
  const upcoming = phase === 'UPCOMING';
  const toggle = (
    <div class="segmented" role="group" aria-label="Which executions" data-testid="execution-phase">
      <button type="button" class={upcoming ? '' : 'on'} aria-pressed={!upcoming} onClick={() => setPhase('HISTORY')}>
        History
      </button>
      <button type="button" class={upcoming ? 'on' : ''} aria-pressed={upcoming} onClick={() => setPhase('UPCOMING')}>
        Upcoming
      </button>
    </div>
  );
  // Keyed by phase: a new view starts empty rather than showing the other view's rows while it loads.
  return <ExecutionsList key={phase} phase={phase} jobId={jobId} showJob={showJob} toggle={toggle} />;
}

function ExecutionsList({
  phase,
  jobId,
  showJob,
  toggle,
}: {
  phase: ExecutionPhase;
  jobId?: string;
  showJob: boolean;
  toggle: ComponentChildren;
}) {
  const now = useNow();
  const { canWrite } = useSession();
  const [status, setStatus] = useState<ExecutionStatus | ''>('');
  const paging = usePaging(PAGE_SIZE);
  useEffect(() => paging.reset(), [status]);
  const upcoming = phase === 'UPCOMING';
  const filter = { ...(jobId ? { jobId } : {}), phase, ...(status ? { statuses: [status] } : {}) };
  // The soonest upcoming ones are the last of the newest-first order.
  const answer = useQuery(ExecutionsDocument, { ...(upcoming ? { last: PAGE_SIZE } : paging.page), filter });
  const [rows, setRows] = useState<ExecutionSummary[]>([]);
  useEffect(() => {
    const nodes = answer.data?.executions.edges.map((e) => e.node) ?? [];
    setRows(upcoming ? nodes.slice().sort(byScheduledFor) : nodes);
  }, [answer.data]);
  const firstPage = upcoming || (!paging.page.after && !paging.page.before);
  const statuses = upcoming ? UPCOMING_STATUSES : HISTORY_STATUSES;
  const belongs = (e: ExecutionSummary) => (status ? e.status === status : statuses.includes(e.status));

  useLive((event) => {
    const changed = event.execution;
    if (jobId && changed.jobId !== jobId) return;
    setRows((current) => {
      const index = current.findIndex((r) => r.id === changed.id);
      if (index >= 0) {
        if (!belongs(changed)) return current.filter((r) => r.id !== changed.id);
        const next = current.slice();
        next[index] = changed;
        return next;
      }
      if (!firstPage || !belongs(changed)) return current;
      const merged = [changed, ...current].sort(byScheduledFor);
      return upcoming ? merged.slice(0, PAGE_SIZE) : merged.reverse().slice(0, PAGE_SIZE);
    });
  });

  const pageInfo = answer.data?.executions.pageInfo;
  const none = upcoming
    ? status
      ? `Nothing ${status.toLowerCase()} right now.`
      : 'Nothing is waiting to start.'
    : status
      ? `No run with status ${status.toLowerCase()} yet.`
      : 'No run has started yet.';
  return (
    <>
      <div class="filters">
        {toggle}
        <select aria-label="Execution status" value={status} onChange={(e) => setStatus(e.currentTarget.value as ExecutionStatus | '')}>
          <option value="">All statuses</option>
          {statuses.map((s) => (
            <option value={s}>{s.charAt(0) + s.slice(1).toLowerCase()}</option>
          ))}
        </select>
        <span class="live" title="Rows change as events arrive">
          <i class="live-dot" /> live
        </span>
        {canWrite && status === 'FAILED' && !upcoming && <BulkRetryButton key={jobId ?? ''} jobId={jobId} />}
      </div>
      <ErrorBanner error={answer.error} />
      <div class="table-wrap">
        <table class="table" data-testid="executions-table" data-phase={phase}>
          <thead>
            <tr>
              {showJob && <th>Job</th>}
              <th>Status</th>
              <th>Scheduled for</th>
              <th>Trigger</th>
              <th>Attempt</th>
              <th>Start lag</th>
              <th>Duration</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => (
              <tr
                key={e.id}
                class="clickable"
                data-execution-id={e.id}
                data-scheduled-for={e.scheduledFor}
                onClick={() => navigate(`/executions/${e.id}`)}
              >
                {showJob && <td class="strong">{e.job?.name ?? <span class="muted">(deleted)</span>}</td>}
                <td>
                  <a href={`#/executions/${e.id}`}>
                    <StatusBadge status={e.status} />
                  </a>
                </td>
                <td>
                  <When iso={e.scheduledFor} now={now} />
                </td>
                <td class="muted">{e.trigger.toLowerCase().replace('_', '-')}</td>
                <td>
                  {e.attempt}/{e.maxAttempts}
                </td>
                <td>{duration(e.startLagMs)}</td>
                <td>{duration(e.durationMs)}</td>
              </tr>
            ))}
            {answer.data && rows.length === 0 && (
              <tr>
                <td colSpan={showJob ? 7 : 6} class="muted empty">
                  {none}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {upcoming
        ? pageInfo?.hasPreviousPage && <p class="muted small">The soonest {PAGE_SIZE}; later ones follow as these start.</p>
        : pageInfo && (
            <Pager
              hasPrevious={pageInfo.hasPreviousPage}
              hasNext={pageInfo.hasNextPage}
              onPrevious={() => paging.previous(pageInfo.startCursor)}
              onNext={() => paging.next(pageInfo.endCursor)}
            />
          )}
    </>
  );
}
