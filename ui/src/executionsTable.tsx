import { useEffect, useState } from 'preact/hooks';
import { EXECUTIONS, type ExecutionStatus, type ExecutionSummary, type PageInfo } from './api/operations.js';
import { ErrorBanner, Pager, StatusBadge, When, usePaging } from './components.js';
import { duration } from './format.js';
import { navigate, useLive, useNow, useQuery } from './hooks.js';

const PAGE_SIZE = 20;

interface ExecutionsAnswer {
  executions: { pageInfo: PageInfo; edges: { node: ExecutionSummary }[] };
}

/**
 * A page of executions (newest first) that stays live: a row changes status in place when its
 * event arrives, and a new execution of the filter appears on top while the first page is shown.
 */
export function ExecutionsTable({ jobId, showJob = true }: { jobId?: string; showJob?: boolean }) {
  const now = useNow();
  const [status, setStatus] = useState<ExecutionStatus | ''>('');
  const paging = usePaging(PAGE_SIZE);
  useEffect(() => paging.reset(), [status]);
  const filter = { ...(jobId ? { jobId } : {}), ...(status ? { statuses: [status] } : {}) };
  const answer = useQuery<ExecutionsAnswer>(EXECUTIONS, { ...paging.page, filter });
  const [rows, setRows] = useState<ExecutionSummary[]>([]);
  useEffect(() => setRows(answer.data?.executions.edges.map((e) => e.node) ?? []), [answer.data]);
  const firstPage = !paging.page.after && !paging.page.before;

  useLive((event) => {
    const changed = event.execution;
    if (jobId && changed.jobId !== jobId) return;
    setRows((current) => {
      const index = current.findIndex((r) => r.id === changed.id);
      if (index >= 0) {
        if (status && changed.status !== status) return current.filter((r) => r.id !== changed.id);
        const next = current.slice();
        next[index] = changed;
        return next;
      }
      if (!firstPage || (status && changed.status !== status)) return current;
      return [changed, ...current].sort((a, b) => Date.parse(b.scheduledFor) - Date.parse(a.scheduledFor)).slice(0, PAGE_SIZE);
    });
  });

  const pageInfo = answer.data?.executions.pageInfo;
  return (
    <>
      <div class="filters">
        <select aria-label="Execution status" value={status} onChange={(e) => setStatus(e.currentTarget.value as ExecutionStatus | '')}>
          <option value="">All statuses</option>
          {['SCHEDULED', 'QUEUED', 'RUNNING', 'RETRYING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'SKIPPED'].map((s) => (
            <option value={s}>{s.charAt(0) + s.slice(1).toLowerCase()}</option>
          ))}
        </select>
        <span class="live" title="Rows change as events arrive">
          <i class="live-dot" /> live
        </span>
      </div>
      <ErrorBanner error={answer.error} />
      <div class="table-wrap">
        <table class="table" data-testid="executions-table">
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
              <tr key={e.id} class="clickable" data-execution-id={e.id} onClick={() => navigate(`/executions/${e.id}`)}>
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
                  No executions{status ? ` with status ${status.toLowerCase()}` : ''} yet.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {pageInfo && (
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
