import { JobChangesDocument } from './api/generated.js';
import { ErrorBanner, Pager, When, usePaging } from './components.js';
import { useNow, useQuery } from './hooks.js';

/** Changes per page of a job's history. */
const PAGE_SIZE = 10;
/** A value longer than this is cut in the table (its whole JSON is the cell's tooltip). */
const SHOWN_CHARS = 80;

/** One field's change as the API gives it: secrets already read "<redacted>". */
interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
  redacted: boolean;
}

/** A job's change history, newest first: when, what, by whom, and each changed field before → after. */
export function ChangeHistory({ jobId }: { jobId: string }) {
  const now = useNow();
  const paging = usePaging(PAGE_SIZE);
  const answer = useQuery(JobChangesDocument, { id: jobId, ...paging.page });
  const changes = answer.data?.job?.changes;
  if (answer.error && !changes) return <ErrorBanner error={answer.error} />;
  if (!changes) return <p class="muted">…</p>;
  if (changes.edges.length === 0) return <p class="muted">No change recorded yet.</p>;
  return (
    <div class="table-wrap">
      <table class="table" data-testid="change-history">
        <thead>
          <tr>
            <th>When</th>
            <th>Action</th>
            <th>By</th>
            <th>Changed</th>
          </tr>
        </thead>
        <tbody>
          {changes.edges.map(({ node }) => (
            <tr key={node.id} data-action={node.action}>
              <td>
                <When iso={node.at} now={now} />
              </td>
              <td>
                {node.action.replaceAll('_', ' ').toLowerCase()}
                {/* A trigger, cancel or retry names the execution it made or changed. */}
                {node.target.type === 'EXECUTION' && (
                  <>
                    {' '}
                    <a href={`#/executions/${node.target.id}`} data-testid="change-execution">
                      execution
                    </a>
                  </>
                )}
              </td>
              <td title={node.actor.role}>
                {node.actor.apiKeyId ? <span>API key {node.actor.apiKeyId}</span> : node.actor.subject}
              </td>
              <td>
                <FieldList fields={node.fields} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager
        hasPrevious={changes.pageInfo.hasPreviousPage}
        hasNext={changes.pageInfo.hasNextPage}
        onPrevious={() => paging.previous(changes.pageInfo.startCursor)}
        onNext={() => paging.next(changes.pageInfo.endCursor)}
      />
    </div>
  );
}

function FieldList({ fields }: { fields: FieldChange[] }) {
  if (fields.length === 0) return <span class="muted">—</span>;
  return (
    <ul class="field-changes">
      {fields.map((f) => (
        <li key={f.field} data-field={f.field}>
          <span class="mono">{f.field}</span>: <Value value={f.before} /> → <Value value={f.after} />
          {f.redacted && <small class="muted"> (a secret inside changed or was set; never shown)</small>}
        </li>
      ))}
    </ul>
  );
}

function Value({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span class="muted">none</span>;
  const text = JSON.stringify(value);
  return (
    <code title={text.length > SHOWN_CHARS ? text : undefined}>{text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text}</code>
  );
}
