import { Queue, type ConnectionOptions } from 'bullmq';
import type { ExecutionStatus } from '../domain/execution.js';
import type { Workload } from '../domain/job.js';
import { waitingEntryId, type ExecutionMessage, type QueueEntry } from './queueEntry.js';

export type { ExecutionMessage, QueueEntry } from './queueEntry.js';

/** Queue names per workload: IO_BOUND and CPU_BOUND executions are consumed by different pools. */
export const QUEUE_NAMES: Record<Workload, string> = { IO_BOUND: 'executions-io', CPU_BOUND: 'executions-cpu' };

/**
 * Producer side of the execution queues. Entries are built by `queueEntry` (src/queue/queueEntry.ts);
 * their id deduplicates, so enqueueing the same execution twice is a no-op while the first entry exists.
 * Owns its BullMQ Queue objects (each with its own Redis connection) and closes them in `close()`.
 */
export class ExecutionQueues {
  private readonly queues: Record<Workload, Queue<ExecutionMessage>>;

  constructor(connection: ConnectionOptions, prefix: string, onError: (error: Error) => void) {
    const make = (name: string) => {
      // Without an offline queue an add fails at once while Redis is unreachable, instead of hanging
      // the mutation until it returns; the execution is in MongoDB already and reconcile enqueues it.
      const queue = new Queue<ExecutionMessage>(name, { connection: { ...connection, enableOfflineQueue: false }, prefix });
      // BullMQ emits 'error' when Redis goes away; an unhandled 'error' event would crash the process.
      queue.on('error', onError);
      return queue;
    };
    this.queues = { IO_BOUND: make(QUEUE_NAMES.IO_BOUND), CPU_BOUND: make(QUEUE_NAMES.CPU_BOUND) };
  }

  /**
   * Adds entries delayed until their `dueAt`. The delay is computed against the real clock just
   * before the add, because BullMQ counts it from the moment it receives the entry: computing it
   * from an earlier `now` would make every entry late by the time spent before the add.
   */
  async enqueue(entries: QueueEntry[]): Promise<void> {
    for (const workload of ['IO_BOUND', 'CPU_BOUND'] as const) {
      const batch = entries.filter((e) => e.workload === workload);
      if (batch.length === 0) continue;
      const now = Date.now();
      await this.queues[workload].addBulk(
        batch.map((e) => ({
          name: 'run',
          data: e.message,
          opts: { jobId: e.id, delay: Math.max(0, e.dueAt.getTime() - now), removeOnComplete: true, removeOnFail: true },
        })),
      );
    }
  }

  /** Removes the waiting entry of an execution not yet started (cancellation); a running or missing one is left alone. */
  async remove(executionId: string, workload: Workload, status: ExecutionStatus, attempt: number): Promise<void> {
    await this.queues[workload].remove(waitingEntryId(executionId, status, attempt));
  }

  /** Entries per queue name that wait (due now), are delayed (due later) or are being run; for the queue-depth metric. */
  async depths(): Promise<Record<string, { waiting: number; delayed: number; active: number }>> {
    const depths: Record<string, { waiting: number; delayed: number; active: number }> = {};
    for (const workload of ['IO_BOUND', 'CPU_BOUND'] as const) {
      const counts = await this.queues[workload].getJobCounts('waiting', 'delayed', 'active');
      depths[QUEUE_NAMES[workload]] = { waiting: counts.waiting ?? 0, delayed: counts.delayed ?? 0, active: counts.active ?? 0 };
    }
    return depths;
  }

  async close(): Promise<void> {
    await Promise.all(Object.values(this.queues).map((q) => q.close()));
  }
}
