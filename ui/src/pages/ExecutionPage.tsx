import { useEffect, useState } from 'preact/hooks';
import { documents, type Execution } from '../api/client.js';
import { Card, ErrorBanner, StatusBadge, When } from '../components.js';
import { absolute, duration } from '../format.js';
import { useAction, useLive, useNow, useQuery } from '../hooks.js';
import { useSession } from '../session.js';

const PENDING = new Set(['SCHEDULED', 'QUEUED', 'RUNNING', 'RETRYING']);

/** One execution: its timing, every attempt, and why it was skipped or cancelled. */
export function ExecutionPage({ id }: { id: string }) {
  const { client, canWrite } = useSession();
  const now = useNow();
  const answer = useQuery(documents.ExecutionDocument, { id });
  const [execution, setExecution] = useState<Execution | null>(null);
  useEffect(() => setExecution(answer.data?.execution ?? null), [answer.data]);
  useLive((event) => event.execution.id === id && setExecution(event.execution));
  const act = useAction((change: () => Promise<unknown>) => change(), answer.reload);

  if (answer.error && !execution) return <main class="page"><ErrorBanner error={answer.error} /></main>;
  if (!answer.data) return <main class="page muted">Loading…</main>;
  if (!execution) return <main class="page"><div class="banner banner-error">This execution does not exist.</div></main>;
  const e = execution;

  return (
    <main class="page">
      <nav class="crumbs">
        <a href="#/executions">Executions</a> / {e.job ? <a href={`#/jobs/${e.job.id}`}>{e.job.name}</a> : <span class="muted">(deleted job)</span>} / <span class="mono">{e.id.slice(-8)}</span>
      </nav>
      <header class="page-head">
        <div>
          <h1>
            {e.job?.name ?? 'Execution'} <StatusBadge status={e.status} />
          </h1>
          <p class="muted">
            {e.trigger.toLowerCase().replace('_', '-')} run scheduled for {absolute(e.scheduledFor)}
          </p>
        </div>
        {canWrite && (
          <div class="actions" data-testid="execution-actions">
            {PENDING.has(e.status) && (
              <button class="btn btn-danger" disabled={act.busy} onClick={() => void act.perform(() => client.cancelExecution(id))}>
                Cancel
              </button>
            )}
            {(e.status === 'FAILED' || e.status === 'CANCELLED') && (
              <button class="btn btn-primary" disabled={act.busy} onClick={() => void act.perform(() => client.retryExecution(id))}>
                ↻ Retry
              </button>
            )}
          </div>
        )}
      </header>
      <ErrorBanner error={act.error} />
      {e.waitingFor && (
        <div class="banner banner-info" data-testid="execution-waiting">
          <p>
            <strong>Not started yet:</strong> {e.waitingFor}
          </p>
        </div>
      )}
      {(e.reason || e.error) && (
        <div class={`banner ${e.status === 'FAILED' ? 'banner-error' : 'banner-info'}`} data-testid="execution-problem">
          {e.reason && (
            <p>
              <strong>Reason:</strong> {e.reason}
            </p>
          )}
          {e.error && (
            <p>
              <strong>Error:</strong> <span class="mono">{e.error}</span>
            </p>
          )}
        </div>
      )}
      <div class="grid-2">
        <Card title="Timing">
          <dl class="settings">
            <dt>Scheduled for</dt>
            <dd>
              <When iso={e.scheduledFor} now={now} />
            </dd>
            <dt>Queued</dt>
            <dd>
              <When iso={e.queuedAt} now={now} />
            </dd>
            <dt>Started</dt>
            <dd>
              <When iso={e.startedAt} now={now} />
            </dd>
            <dt>Finished</dt>
            <dd>
              <When iso={e.finishedAt} now={now} />
            </dd>
            <dt>Start lag</dt>
            <dd>{duration(e.startLagMs)}</dd>
            <dt>Duration</dt>
            <dd>{duration(e.durationMs)}</dd>
            <dt>Attempt</dt>
            <dd>
              {e.attempt} of {e.maxAttempts}
            </dd>
            {e.nextAttemptAt && (
              <>
                <dt>Next attempt</dt>
                <dd>
                  <When iso={e.nextAttemptAt} now={now} />
                </dd>
              </>
            )}
          </dl>
        </Card>
        <Card title="Result">
          {e.result === null || e.result === undefined ? <p class="muted">No result.</p> : <pre class="result">{JSON.stringify(e.result, null, 2)}</pre>}
        </Card>
      </div>
      <Card title={`Attempts (${e.attempts.length})`}>
        <div class="table-wrap">
          <table class="table" data-testid="attempts-table">
            <thead>
              <tr>
                <th>#</th>
                <th>Outcome</th>
                <th>Error</th>
                <th>HTTP</th>
                <th>Worker</th>
                <th>Started</th>
                <th>Duration</th>
              </tr>
            </thead>
            <tbody>
              {e.attempts.map((a) => (
                <tr key={a.number}>
                  <td>{a.number}</td>
                  <td>{a.outcome ? <StatusBadge status={a.outcome} /> : <StatusBadge status="RUNNING" />}</td>
                  <td class="mono break">{a.error ?? <span class="muted">—</span>}</td>
                  <td>
                    {a.httpStatus ?? <span class="muted">—</span>}
                    {a.retryAfterSeconds != null && <span class="muted small"> · Retry-After {a.retryAfterSeconds} s</span>}
                  </td>
                  <td class="mono small">{a.workerId ?? '—'}</td>
                  <td>{absolute(a.startedAt)}</td>
                  <td>{a.finishedAt ? duration(Date.parse(a.finishedAt) - Date.parse(a.startedAt)) : 'running…'}</td>
                </tr>
              ))}
              {e.attempts.length === 0 && (
                <tr>
                  <td colSpan={7} class="muted empty">
                    No attempt has started.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      </Card>
    </main>
  );
}
