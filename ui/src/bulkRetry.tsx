import { useEffect, useRef, useState } from 'preact/hooks';
import type { BulkOperation } from './api/client.js';
import { ErrorBanner } from './components.js';
import { useAction } from './hooks.js';
import { useSession } from './session.js';

/**
 * "Retry all failed in this view": one bulk retry (retryExecutions) of the FAILED executions the
 * list shows (of its job, or all the tenant's), then its progress (done/total) from the
 * bulkOperationProgress subscription until it ends. The retried rows leave the FAILED view as their
 * QUEUED events arrive.
 */
export function BulkRetryButton({ jobId }: { jobId?: string }) {
  const { client } = useSession();
  const [operation, setOperation] = useState<BulkOperation | null>(null);
  const watching = useRef<AbortController | null>(null);
  useEffect(() => () => watching.current?.abort(), []);
  const retry = useAction(async () => {
    const started = await client.retryExecutions({ ...(jobId ? { jobId } : {}), statuses: ['FAILED'] });
    setOperation(started);
    watching.current?.abort();
    const stop = (watching.current = new AbortController());
    for await (const progress of client.watchBulkOperation(started.id, { signal: stop.signal })) setOperation(progress);
  });
  const running = operation?.status === 'RUNNING';
  return (
    <div class="bulk-retry" data-testid="bulk-retry">
      <button type="button" class="btn btn-primary" disabled={retry.busy || running} onClick={() => void retry.perform()}>
        ↻ Retry all failed in this view
      </button>
      {operation && (
        <span class="muted small" data-testid="bulk-retry-progress" data-status={operation.status}>
          {running ? 'Retrying' : operation.status === 'SUCCEEDED' ? 'Retried' : 'Stopped'} {operation.done}/{operation.total}
          {operation.failed > 0 && `, ${operation.failed} could not be retried`}
          {operation.reason && ` (${operation.reason})`}
        </span>
      )}
      <ErrorBanner error={retry.error} />
    </div>
  );
}
