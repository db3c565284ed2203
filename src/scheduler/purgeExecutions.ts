import { FINAL_STATUSES } from '../domain/execution.js';
import type { RetentionStore } from '../store/retentionStore.js';
import { setTimeout as sleep } from 'node:timers/promises';

const DAY_MS = 86_400_000;

export interface PurgeDeps {
  retention: RetentionStore;
  /** Each tenant's retention in days. */
  tenants: () => Promise<{ tenantId: string; executionRetentionDays: number }[]>;
}

export interface PurgeOptions {
  /** Executions deleted per batch. Default 500. */
  batchSize?: number;
  /** Deletions per run at most (the rest waits for the next run). Default 50 000. */
  maxDeletes?: number;
  /** Pause after each full batch, so the purge leaves MongoDB to the sweep most of the time. Default 50 ms. */
  pauseMs?: number;
  /** Stops the run early (the leader stood down). */
  shouldStop?: () => boolean;
}

/**
 * The leader's `purge` job: deletes each tenant's finished executions (SUCCEEDED, FAILED,
 * CANCELLED, SKIPPED) that finished more than its `executionRetentionDays` before `now`, and its
 * change records, alerts and finished bulk operations from before then (the same retention), in batches. Waiting and running executions
 * are kept whatever their age; jobs are never purged. A run stopped by `maxDeletes` (all of them
 * together) leaves the rest to the next, which finds the first tenants done.
 */
export async function purgeExecutions(deps: PurgeDeps, now: Date, options: PurgeOptions = {}): Promise<{ deleted: number }> {
  const batchSize = options.batchSize ?? 500;
  const maxDeletes = options.maxDeletes ?? 50_000;
  const pauseMs = options.pauseMs ?? 50;
  let deleted = 0;
  for (const { tenantId, executionRetentionDays } of await deps.tenants()) {
    const before = new Date(now.getTime() - executionRetentionDays * DAY_MS);
    const batches: ((limit: number) => Promise<number>)[] = [
      ...FINAL_STATUSES.map((status) => (limit: number) => deps.retention.purgeBatch(tenantId, status, before, limit)),
      (limit: number) => deps.retention.purgeChanges(tenantId, before, limit),
      (limit: number) => deps.retention.purgeAlerts(tenantId, before, limit),
      (limit: number) => deps.retention.purgeBulkOperations(tenantId, before, limit),
    ];
    for (const batch of batches) {
      for (;;) {
        if (deleted >= maxDeletes || options.shouldStop?.()) return { deleted };
        const count = await batch(Math.min(batchSize, maxDeletes - deleted));
        deleted += count;
        if (count < batchSize) break;
        if (pauseMs > 0) await sleep(pauseMs);
      }
    }
  }
  return { deleted };
}
