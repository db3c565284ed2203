import { Queue, type ConnectionOptions } from 'bullmq';
import type { Workload } from '../domain/job.js';

/** Queue names per workload: IO_BOUND and CPU_BOUND executions are consumed by different pools. */
export const QUEUE_NAMES: Record<Workload, string> = { IO_BOUND: 'executions-io', CPU_BOUND: 'executions-cpu' };

/** What a queue entry carries: only ids; the worker reads the rest from MongoDB. */
export interface ExecutionMessage {
  executionId: string;
  tenantId: string;
  /** Set by reconcile for a RUNNING execution past its deadline: the worker running it is gone. */
  takeover?: boolean;
}

export interface EnqueueRequest {
  executionId: string;
  tenantId: string;
  workload: Workload;
  /** When it is due; the entry is delayed until then (exact delay, not the next scan). */
  dueAt: Date;
  /**
   * Distinguishes later deliveries from the first, since a queue id deduplicates adds: the retry
   * round (attempt number before it), or 'buffered' for an execution BUFFER_ONE held back.
   */
  round?: number | 'buffered';
  /** A takeover of the RUNNING attempt with this number (reconcile); its own queue entry id. */
  takeoverOf?: number;
  /** A redelivery after waiting for a tenant concurrency slot; each wait needs an entry id of its own (the period it is due in). */
  waitRound?: number;
  /**
   * Reconcile's re-enqueue of an execution still waiting past its grace: an entry id of its own per
   * minute, so an entry stuck in Redis under the usual id cannot swallow every re-enqueue.
   */
  healRound?: number;
}

/**
 * Producer side of the execution queues. The queue entry id is the execution id (plus a round for
 * retries), so enqueueing the same execution twice is a no-op while the first entry exists.
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

  static entryId(executionId: string, round: number | 'buffered' = 0, takeoverOf?: number, waitRound?: number, healRound?: number): string {
    // BullMQ ids may not contain ':'.
    if (healRound) return `${executionId}-h${healRound}`;
    if (waitRound) return `${executionId}-w${waitRound}`;
    if (takeoverOf) return `${executionId}-t${takeoverOf}`;
    if (round === 'buffered') return `${executionId}-b`;
    return round === 0 ? executionId : `${executionId}-r${round}`;
  }

  /**
   * Adds entries delayed until their `dueAt`. The delay is computed against the real clock just
   * before the add, because BullMQ counts it from the moment it receives the entry: computing it
   * from an earlier `now` would make every entry late by the time spent before the add.
   */
  async enqueue(requests: EnqueueRequest[]): Promise<void> {
    for (const workload of ['IO_BOUND', 'CPU_BOUND'] as const) {
      const batch = requests.filter((r) => r.workload === workload);
      if (batch.length === 0) continue;
      const now = Date.now();
      await this.queues[workload].addBulk(
        batch.map((r) => ({
          name: 'run',
          data: { executionId: r.executionId, tenantId: r.tenantId, ...(r.takeoverOf ? { takeover: true } : {}) },
          opts: {
            jobId: ExecutionQueues.entryId(r.executionId, r.round, r.takeoverOf, r.waitRound, r.healRound),
            delay: Math.max(0, r.dueAt.getTime() - now),
            removeOnComplete: true,
            removeOnFail: true,
          },
        })),
      );
    }
  }

  /** Removes a not-yet-started entry (cancellation); a running or missing one is left alone. */
  async remove(executionId: string, workload: Workload, round: number | 'buffered' = 0): Promise<void> {
    await this.queues[workload].remove(ExecutionQueues.entryId(executionId, round));
  }

  async close(): Promise<void> {
    await Promise.all(Object.values(this.queues).map((q) => q.close()));
  }
}
