import { Queue, type ConnectionOptions } from 'bullmq';
import type { ExecutionStatus } from '../domain/execution.js';
import { WORKLOADS, type Workload } from '../domain/job.js';
import { waitingEntryId, type ExecutionMessage, type QueueEntry } from './queueEntry.js';
import { QUEUE_NAMES, type QueueShards } from './queueShards.js';
import type { WaitingIndex } from './waitingIndex.js';

export type { ExecutionMessage, QueueEntry } from './queueEntry.js';
export { QUEUE_NAMES, QueueShards } from './queueShards.js';

/**
 * Producer side of the execution queues: one BullMQ queue per workload and shard (`QueueShards`),
 * an entry going to its tenant's shard. Entries are built by `queueEntry` (src/queue/queueEntry.ts);
 * their id deduplicates within a queue, and one execution always maps to one queue (its tenant's),
 * so enqueueing the same execution twice is a no-op while the first entry exists.
 * `connection` is either options (each Queue opens its own connection, closed in `close()`) or a
 * client shared by every queue (a Redis Cluster client), which stays the caller's to close.
 * `waitingIndex`, the index of each tenant's waiting entries (maxWaitingExecutions), is kept beside the
 * adds and removals; it is the caller's, on the caller's connection (null: none is kept, for tools
 * and tests that do not count them).
 */
export class ExecutionQueues {
  private readonly queues = new Map<string, Queue<ExecutionMessage>>();

  constructor(
    connection: ConnectionOptions,
    prefix: string,
    private readonly onError: (error: Error) => void,
    readonly shards: QueueShards,
    private readonly waitingIndex: WaitingIndex | null,
  ) {
    const shared = 'duplicate' in connection;
    for (const workload of WORKLOADS) {
      for (const name of shards.names(workload)) {
        // Without an offline queue an add fails at once while Redis is unreachable, instead of hanging
        // the mutation until it returns; the execution is in MongoDB already and reconcile enqueues it.
        // (A shared client is made with enableOfflineQueue false by its owner.)
        const queue = new Queue<ExecutionMessage>(name, {
          connection: shared ? connection : { ...connection, enableOfflineQueue: false },
          prefix,
        });
        // BullMQ emits 'error' when Redis goes away; an unhandled 'error' event would crash the process.
        queue.on('error', onError);
        this.queues.set(name, queue);
      }
    }
  }

  private queue(workload: Workload, tenantId: string): Queue<ExecutionMessage> {
    return this.queues.get(this.shards.queueOf(workload, tenantId))!;
  }

  /**
   * Adds entries delayed until their `dueAt`, one addBulk per queue (a bulk add is one script on one
   * shard's slot). The delay is computed against the real clock just before each add, because BullMQ
   * counts it from the moment it receives the entry: computing it from an earlier `now` would make
   * every entry late by the time spent before the add.
   */
  async enqueue(entries: QueueEntry[]): Promise<void> {
    const byQueue = new Map<Queue<ExecutionMessage>, QueueEntry[]>();
    for (const entry of entries) {
      const queue = this.queue(entry.workload, entry.message.tenantId);
      byQueue.set(queue, [...(byQueue.get(queue) ?? []), entry]);
    }
    // Beside the adds, not before them: no round trip of its own. Best effort (see WaitingIndex).
    const indexed = this.waitingIndex?.add(entries, Date.now()).catch((error: unknown) => this.onError(asError(error)));
    for (const [queue, batch] of byQueue) {
      const now = Date.now();
      await queue.addBulk(
        batch.map((e) => ({
          name: 'run',
          data: e.message,
          opts: { jobId: e.id, delay: Math.max(0, e.dueAt.getTime() - now), removeOnComplete: true, removeOnFail: true },
        })),
      );
    }
    await indexed;
  }

  /** Removes the waiting entry of an execution not yet started (cancellation); a running or missing one is left alone. */
  async remove(
    execution: { executionId: string; tenantId: string; workload: Workload },
    status: ExecutionStatus,
    attempt: number,
  ): Promise<void> {
    const entryId = waitingEntryId(execution.executionId, status, attempt);
    await Promise.all([
      this.queue(execution.workload, execution.tenantId).remove(entryId),
      this.waitingIndex?.remove(execution.workload, execution.tenantId, entryId).catch((error: unknown) => this.onError(asError(error))),
    ]);
  }

  /**
   * The entry no longer waits: its attempt started, or its delivery ended and it left the queue. Best
   * effort and not awaited by the worker: a removal that is lost only counts the entry until a trim.
   */
  leftWaiting(workload: Workload, tenantId: string, entryId: string): void {
    this.waitingIndex?.remove(workload, tenantId, entryId).catch((error: unknown) => this.onError(asError(error)));
  }

  /**
   * Makes a delayed entry due now (a waiter woken by a freed tenant slot); false when the entry is
   * not delayed (running, already due, or gone), which the caller treats as nothing to wake.
   */
  async promote(workload: Workload, tenantId: string, entryId: string): Promise<boolean> {
    const entry = await this.queue(workload, tenantId).getJob(entryId);
    if (!entry) return false;
    try {
      await entry.promote();
      return true;
    } catch (error) {
      // BullMQ refuses an entry that left the delayed set since getJob (racy, and normal); other errors are Redis's.
      if (error instanceof Error && error.message.includes('is not in the delayed state')) return false;
      throw error;
    }
  }

  /**
   * Entries per workload queue name (`executions-io`, `executions-cpu`, summed over its shards) that
   * wait (due now), are delayed (due later) or are being run; for the queue-depth metric.
   */
  async depths(): Promise<Record<string, { waiting: number; delayed: number; active: number }>> {
    const depths: Record<string, { waiting: number; delayed: number; active: number }> = {};
    for (const workload of WORKLOADS) {
      const total = { waiting: 0, delayed: 0, active: 0 };
      const counts = await Promise.all(
        this.shards.names(workload).map((name) => this.queues.get(name)!.getJobCounts('waiting', 'delayed', 'active')),
      );
      for (const c of counts) {
        total.waiting += c.waiting ?? 0;
        total.delayed += c.delayed ?? 0;
        total.active += c.active ?? 0;
      }
      depths[QUEUE_NAMES[workload]] = total;
    }
    return depths;
  }

  /** Entries due now in the queue shard `name` (one of `shards.names`), for the consumer watchdog. */
  async waiting(name: string): Promise<number> {
    return (await this.queues.get(name)!.getJobCounts('waiting')).waiting ?? 0;
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
