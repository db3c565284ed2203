import { DelayedError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { Workload } from '../domain/job.js';
import { errorMessage, type Logger } from '../logger.js';
import type { ExecutionMessage, QueueShards } from '../queue/executionQueues.js';
import { runExecution, type RunDeps } from './runExecution.js';
import { isMongoUnavailable } from '../store/mongo.js';
import { shareOf, TenantShare } from './tenantShare.js';
import { PoolGate } from './poolGate.js';

const MONGO_DOWN_PAUSE_MS = 2000;

export interface WorkerRoleOptions {
  redisPrefix: string;
  /** The queue shards of each workload (config QUEUE_SHARDS): this process consumes every one. */
  shards: QueueShards;
  /** IO_BOUND executions at once per process. */
  ioConcurrency: number;
  /** CPU_BOUND executions at once per process (default: one per core). */
  cpuConcurrency: number;
  /** The most of each pool's slots one tenant may hold, in percent (rounded down, at least one slot). */
  tenantSharePercent: number;
  /** The queue lock, our visibility timeout (config QUEUE_LOCK_MS); BullMQ renews it every half while the worker is alive. */
  lockDurationMs: number;
  /** How long stop() lets running attempts finish before aborting them (recorded CRASHED, retried); config WORKER_DRAIN_MS. */
  drainTimeoutMs: number;
}

/**
 * The worker role: one BullMQ consumer per workload queue shard, the shards of a workload sharing
 * its pool (`PoolGate`). Each consumer opens its own Redis connections from `connection` (options,
 * or a client it duplicates: a Redis Cluster client) and closes them in `stop()`.
 */
export class WorkerRole {
  private readonly workers: Worker<ExecutionMessage>[];

  private readonly gates: PoolGate[];

  private readonly drainTimeoutMs: number;

  private readonly deps: RunDeps;

  constructor(connection: ConnectionOptions, runDeps: Omit<RunDeps, 'tenantShare'>, private readonly logger: Logger, options: WorkerRoleOptions) {
    this.drainTimeoutMs = options.drainTimeoutMs;
    // A tenant holds at most its share of each pool, so its backlog never takes every slot of the process.
    const tenantShare = new TenantShare({
      IO_BOUND: shareOf(options.ioConcurrency, options.tenantSharePercent),
      CPU_BOUND: shareOf(options.cpuConcurrency, options.tenantSharePercent),
    });
    const deps: RunDeps = (this.deps = { ...runDeps, tenantShare });
    const consume = (workload: Workload, queueName: string, concurrency: number, gate: PoolGate) => {
      const run = async (entry: Job<ExecutionMessage>, token?: string) => {
        const release = await gate.acquire();
        if (!release) {
          // Stopping: the entry never started here; it goes back to the queue as due now.
          await entry.moveToDelayed(Date.now(), token);
          throw new DelayedError();
        }
        try {
          await runExecution(deps, entry.data, { takeover: entry.stalledCounter > 0 || entry.data.takeover === true });
        } catch (error) {
          if (!isMongoUnavailable(error)) throw error;
          deps.metrics.mongoError('worker');
          // MongoDB unreachable: put the entry back and pause this queue for a while, rather than
          // drop work we could not record (reconcile would find it, but only after its grace period).
          logger.warn('MongoDB unreachable: pausing the queue', { workload, pauseMs: MONGO_DOWN_PAUSE_MS });
          await worker.rateLimit(MONGO_DOWN_PAUSE_MS);
          throw Worker.RateLimitError();
        } finally {
          release();
        }
      };
      const worker: Worker<ExecutionMessage> = new Worker<ExecutionMessage>(queueName, run, {
        connection,
        prefix: options.redisPrefix,
        concurrency,
        lockDuration: options.lockDurationMs,
        // A lapsed lock is found by the stalled check, which then hands the entry to another worker:
        // check as often as the lock lasts, and never give up on an entry (runExecution records the
        // lost attempt as CRASHED and counts it against maxAttempts instead).
        stalledInterval: options.lockDurationMs,
        maxStalledCount: 1000,
        autorun: false,
      });
      worker.on('error', (error) => {
        deps.metrics.redisError('worker');
        logger.warn('queue consumer error', { workload, error: errorMessage(error) });
      });
      worker.on('failed', (entry, error) =>
        // The execution stays in MongoDB in its last state: reconcile re-enqueues a waiting one, and
        // runExecution has recorded a started one as CRASHED and queued its next attempt.
        logger.warn('execution delivery failed', { workload, executionId: entry?.data.executionId, error: errorMessage(error) }),
      );
      return worker;
    };
    const pools: [Workload, number][] = [['IO_BOUND', options.ioConcurrency], ['CPU_BOUND', options.cpuConcurrency]];
    this.gates = [];
    this.workers = pools.flatMap(([workload, size]) => {
      const gate = new PoolGate(size);
      this.gates.push(gate);
      return options.shards.names(workload).map((name) => consume(workload, name, size, gate));
    });
  }

  start(): void {
    for (const worker of this.workers) {
      worker.run().catch((error: unknown) => this.logger.error('queue consumer stopped', { error: errorMessage(error) }));
    }
  }

  /** Stops taking work, lets running attempts finish within the drain timeout, then aborts the rest. */
  async stop(): Promise<void> {
    const closed = Promise.all(this.workers.map((w) => w.close()));
    for (const gate of this.gates) gate.close();
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([closed.then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.drainTimeoutMs)))]);
    clearTimeout(timer);
    if (!drained) {
      this.logger.warn('drain timeout: aborting running attempts', { drainTimeoutMs: this.drainTimeoutMs });
      this.deps.cancels.abortAll();
      await closed;
    }
  }
}
