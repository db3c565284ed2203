import type { BulkItem } from '../domain/bulkOperation.js';
import { CANCELLED_STATUS } from '../domain/execution.js';
import { KairosError } from '../errors/index.js';
import { eachItem, type BulkItemResult } from './bulkItems.js';
import { cancelCurrent, type CancelDeps } from './cancelExecution.js';

/**
 * Cancels a batch of a bulk cancel's items as cancelExecution does (a running attempt is signalled
 * to abort). One already CANCELLED counts as done (a batch repeated after a crash finds its own
 * cancels); one that ended otherwise, or was deleted, as failed.
 */
export async function cancelBatch(deps: CancelDeps, items: readonly BulkItem[], now: Date): Promise<BulkItemResult[]> {
  return eachItem(items, async (item): Promise<BulkItemResult> => {
    const current = await deps.executions.findById(item._id);
    if (!current) return { ok: false, message: 'it was deleted' };
    if (current.status === CANCELLED_STATUS) return { ok: true };
    try {
      await cancelCurrent(deps, current, now);
      return { ok: true };
    } catch (error) {
      if (error instanceof KairosError) return { ok: false, message: error.message };
      throw error;
    }
  });
}
