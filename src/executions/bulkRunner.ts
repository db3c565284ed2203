import { ObjectId } from 'mongodb';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../clock.js';
import { BULK_ERROR_SAMPLE, type BulkOperationDoc, type BulkOperationKind } from '../domain/bulkOperation.js';
import { errorMessage, type Logger } from '../logger.js';
import type { BulkOperationRuns, BulkProgress } from '../store/bulkOperationRuns.js';
import type { BulkItemResult, BulkBatch } from './bulkItems.js';
import type { BulkLeases } from './bulkLeases.js';
import { batchSize, paceDelayMs } from './bulkPacing.js';

/** How long a bulk retry waits when its tenant has no waiting room, before it looks again. */
export const ROOM_WAIT_MS = 1000;

export interface BulkRunnerDeps {
  runs: BulkOperationRuns;
  leases: BulkLeases;
  /** BULK_EXECUTIONS_PER_SECOND, BULK_OPERATIONS_PER_PROCESS and BULK_CLAIM_EVERY_MS (config/bulkSettings.ts). */
  settings: { executionsPerSecond: number; operationsPerProcess: number; claimEveryMs: number };
  /** Each kind's batch: bulkRetry's retryBatch, bulkCancel's cancelBatch, bound to the operation's tenant. */
  batches: Record<BulkOperationKind, BulkBatch>;
  clock: Clock;
  logger: Logger;
}

/**
 * Runs the bulk operations of every tenant in the api processes: each process looks for RUNNING
 * operations at start, every claimEveryMs and when one is created here (`wake`), and runs those whose
 * Redis lease it gets, at most operationsPerProcess at once. An operation runs batch by batch at
 * executionsPerSecond, its progress written after each batch (so resuming repeats at most the batch
 * in hand, which the items' compare-and-sets make harmless), its lease renewed meanwhile. A lease lost
 * (the process stalled past it) stops the run; a process killed stops renewing, and another takes
 * the operation over once the lease lapses. Its timers and runs are stopped by `stop()`.
 */
export class BulkRunner {
  private readonly running = new Map<string, Promise<void>>();
  private readonly stopping = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private claiming: Promise<void> | null = null;
  private claimAgain = false;

  constructor(private readonly deps: BulkRunnerDeps) {}

  /** Looks for operations now, then every claimEveryMs. */
  start(): void {
    this.wake();
    this.timer = setInterval(() => this.wake(), this.deps.settings.claimEveryMs);
    this.timer.unref();
  }

  /** Looks for operations to run now (one look at a time; a wake during one makes another after it). */
  wake(): void {
    if (this.stopping.signal.aborted) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = this.claim()
      .catch((error: unknown) => this.deps.logger.warn('could not look for bulk operations', { error: errorMessage(error) }))
      .finally(() => {
        this.claiming = null;
        if (this.claimAgain) {
          this.claimAgain = false;
          this.wake();
        }
      });
  }

  /** Stops looking, stops the runs after their batch in hand and releases their leases, so another process resumes them at once. */
  async stop(): Promise<void> {
    this.stopping.abort();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.claiming;
    await Promise.all(this.running.values());
  }

  private async claim(): Promise<void> {
    const { operationsPerProcess } = this.deps.settings;
    if (this.running.size >= operationsPerProcess) return;
    const candidates = await this.deps.runs.running(100);
    for (const candidate of candidates) {
      if (this.running.size >= operationsPerProcess || this.stopping.signal.aborted) return;
      const id = candidate._id.toHexString();
      if (this.running.has(id) || !(await this.deps.leases.acquire(id))) continue;
      const run = this.runLeased(id).finally(() => {
        this.running.delete(id);
        // A turn came free: an operation waiting for one may start.
        this.wake();
      });
      this.running.set(id, run);
    }
  }

  /** Runs an operation whose lease this process holds, renewing the lease until the run ends, then releasing it. */
  private async runLeased(id: string): Promise<void> {
    const { leases, logger } = this.deps;
    const lost = new AbortController();
    const renewal = setInterval(
      () => {
        leases.renew(id).then(
          (held) => {
            if (!held) lost.abort();
          },
          (error: unknown) => logger.warn('could not renew a bulk operation lease', { operation: id, error: errorMessage(error) }),
        );
      },
      Math.max(100, Math.floor(leases.leaseMs / 3)),
    );
    try {
      // Read again under the lease: the progress its previous runner wrote last.
      const operation = await this.deps.runs.findById(new ObjectId(id));
      if (operation?.state === 'RUNNING') await this.run(operation, AbortSignal.any([lost.signal, this.stopping.signal]));
    } catch (error) {
      // Left RUNNING: this or another process takes it up again at a later look.
      logger.warn('bulk operation interrupted; it will be resumed', { operation: id, error: errorMessage(error) });
    } finally {
      clearInterval(renewal);
      await leases.release(id).catch(() => undefined);
    }
  }

  private async run(operation: BulkOperationDoc, signal: AbortSignal): Promise<void> {
    const { runs, clock, settings } = this.deps;
    const batch = this.deps.batches[operation.kind];
    const items = await runs.items(operation);
    if (items.length < operation.total) {
      await runs.finish(
        operation,
        { state: 'FAILED', reason: 'its matched executions could not be read back' },
        progressOf(operation),
        clock(),
      );
      return;
    }
    const progress = progressOf(operation);
    const size = batchSize(settings.executionsPerSecond);
    let since = clock().getTime();
    let handled = 0;
    while (progress.position < operation.total) {
      if (signal.aborted) return;
      const results = await batch(operation, items.slice(progress.position, progress.position + size), clock());
      if (results.length === 0) {
        // No waiting room: wait for the tenant's executions to start, then keep the pace from there.
        await pause(ROOM_WAIT_MS, signal);
        since = clock().getTime();
        handled = 0;
        continue;
      }
      record(
        progress,
        results,
        items.slice(progress.position).map((i) => i._id),
      );
      handled += results.length;
      if (!(await runs.recordProgress(operation._id, progress, clock()))) return;
      await pause(paceDelayMs(handled, settings.executionsPerSecond, since, clock().getTime()), signal);
    }
    await runs.finish(operation, { state: 'SUCCEEDED', reason: null }, progress, clock());
  }
}

function progressOf(operation: BulkOperationDoc): BulkProgress {
  return { position: operation.position, done: operation.done, failed: operation.failed, errors: [...operation.errors] };
}

/** Adds a batch's results (for the items from `progress.position`, `ids`) to `progress`, keeping the latest BULK_ERROR_SAMPLE errors. */
export function record(
  progress: BulkProgress,
  results: readonly BulkItemResult[],
  ids: readonly BulkProgress['errors'][number]['executionId'][],
): void {
  results.forEach((result, i) => {
    if (result.ok) progress.done++;
    else {
      progress.failed++;
      progress.errors.push({ executionId: ids[i], message: result.message });
    }
  });
  progress.position += results.length;
  if (progress.errors.length > BULK_ERROR_SAMPLE) progress.errors.splice(0, progress.errors.length - BULK_ERROR_SAMPLE);
}

/** Waits `ms`, or less when `signal` aborts (then resolves: the caller checks the signal). */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return;
  await sleep(ms, undefined, { signal }).catch(() => undefined);
}
