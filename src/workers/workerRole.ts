import { within } from '../clock.js';
import { DelayedError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import { WORKLOADS, type Workload } from '../domain/job.js';
import { errorMessage, type Logger } from '../logger.js';
import { executionLogFields, jobLogFields } from '../ids/logFields.js';
import type { ExecutionMessage, QueueShards } from '../queue/executionQueues.js';
import { runExecution, type RunDeps } from './runExecution.js';
import type { KairosMetrics } from '../metrics/kairosMetrics.js';
import type { CancelSignals } from '../events/cancelSignals.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';
import { isMongoUnavailable } from '../store/mongo.js';
import { shareOf, TenantShare } from './tenantShare.js';
import { PoolGate } from './poolGate.js';
import { ConsumerWatchdog } from './consumerWatchdog.js';
import { PunctualWorker } from './punctualWorker.js';

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
  /** A consumer that took nothing for this long while its queue has entries waiting is replaced (ConsumerWatchdog); config WORKER_WEDGED_MS. */
  wedgedAfterMs: number;
}

/** What the role uses of its deliveries' dependencies itself: the waiting counts, error metrics, and the abort of running attempts. */
type RoleDeps = RunDeps & {
  queues: Pick<ExecutionQueues, 'leftWaiting' | 'waiting'>;
  metrics: Pick<KairosMetrics, 'mongoError' | 'redisError'>;
  cancels: Pick<CancelSignals, 'abortAll'>;
};

/** One BullMQ consumer of a queue shard, with what the watchdog needs to know of it. */
interface Consumer {
  readonly workload: Workload;
  readonly name: string;
  readonly worker: Worker<ExecutionMessage>;
  inFlight: number;
  lastTakenAt: number;
}

/**
 * The worker role: one BullMQ consumer per workload queue shard, the shards of a workload sharing
 * its pool (`PoolGate`). Each consumer opens its own Redis connections from `connection` (options,
 * or a client it duplicates: a Redis Cluster client) and closes them in `stop()`.
 */
export class WorkerRole {
  private consumers: Consumer[];

  /** Consumers replaced by the watchdog, still closing. */
  private readonly retired: Promise<void>[] = [];

  private readonly gates = new Map<Workload, PoolGate>();

  private readonly pools: Record<Workload, number>;

  private readonly watchdog: ConsumerWatchdog;

  private watchdogTimer: NodeJS.Timeout | null = null;

  private readonly consume: (workload: Workload, name: string) => Consumer;

  private readonly drainTimeoutMs: number;

  private readonly wedgedAfterMs: number;

  private readonly deps: RoleDeps;

  /** The injected clock, in milliseconds: when consumers last took work, for the watchdog. */
  private readonly now = () => this.deps.clock().getTime();

  private readonly logger: Logger;

  constructor(connection: ConnectionOptions, runDeps: Omit<RoleDeps, 'tenantShare'>, options: WorkerRoleOptions) {
    const logger = (this.logger = runDeps.logger);
    this.drainTimeoutMs = options.drainTimeoutMs;
    // A tenant holds at most its share of each pool, so its backlog never takes every slot of the process.
    const tenantShare = new TenantShare({
      IO_BOUND: shareOf(options.ioConcurrency, options.tenantSharePercent),
      CPU_BOUND: shareOf(options.cpuConcurrency, options.tenantSharePercent),
    });
    const deps: RoleDeps = (this.deps = { ...runDeps, tenantShare });
    this.pools = { IO_BOUND: options.ioConcurrency, CPU_BOUND: options.cpuConcurrency };
    this.consume = (workload: Workload, queueName: string) => {
      const gate = this.gates.get(workload)!;
      const concurrency = this.pools[workload];
      const consumer: Omit<Consumer, 'worker'> = { workload, name: queueName, inFlight: 0, lastTakenAt: this.now() };
      const run = async (entry: Job<ExecutionMessage>, token?: string) => {
        consumer.inFlight++;
        consumer.lastTakenAt = this.now();
        try {
          await runEntry(entry, token);
        } finally {
          consumer.inFlight--;
        }
      };
      const runEntry = async (entry: Job<ExecutionMessage>, token?: string) => {
        const release = await gate.acquire();
        if (!release) {
          // Stopping: the entry never started here; it goes back to the queue as due now.
          // BullMQ's delays are wall-clock instants compared in Redis, whatever clock Kairos is given.
          await entry.moveToDelayed(Date.now(), token);
          throw new DelayedError();
        }
        try {
          const redelivery = await runExecution(deps, entry.data, {
            takeover: entry.stalledCounter > 0 || entry.data.takeover === true,
            entryId: entry.id,
          });
          if (redelivery) {
            if (redelivery.message) await entry.updateData(redelivery.message);
            await entry.moveToDelayed(redelivery.at.getTime(), token);
            throw new DelayedError();
          }
          // Done with: the entry leaves the queue (removeOnComplete), and the tenant's waiting entries.
          deps.queues.leftWaiting(workload, entry.data.tenantId, entry.id ?? entry.data.executionId);
        } catch (error) {
          // A failed delivery leaves the queue too (removeOnFail); one put back stays counted.
          if (!(error instanceof DelayedError) && !isMongoUnavailable(error)) {
            deps.queues.leftWaiting(workload, entry.data.tenantId, entry.id ?? entry.data.executionId);
          }
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
      const worker: Worker<ExecutionMessage> = new PunctualWorker<ExecutionMessage>(queueName, run, {
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
        logger.warn('execution delivery failed', {
          workload,
          ...(entry && {
            tenantId: entry.data.tenantId,
            ...(entry.data.run && jobLogFields(entry.data.run.jobId)),
            ...executionLogFields(entry.data.executionId),
          }),
          error: errorMessage(error),
        }),
      );
      return Object.assign(consumer, { worker });
    };
    for (const workload of WORKLOADS) this.gates.set(workload, new PoolGate(this.pools[workload]));
    this.consumers = WORKLOADS.flatMap((workload) => options.shards.names(workload).map((name) => this.consume(workload, name)));
    this.watchdog = new ConsumerWatchdog({ waiting: (name) => runDeps.queues.waiting(name) }, { wedgedAfterMs: options.wedgedAfterMs });
    this.wedgedAfterMs = options.wedgedAfterMs;
  }

  start(): void {
    for (const consumer of this.consumers) this.run(consumer);
    const check = () => {
      this.replaceWedged().catch((error: unknown) => this.logger.warn('queue consumer check failed', { error: errorMessage(error) }));
      this.watchdogTimer = setTimeout(check, this.wedgedAfterMs / 3);
    };
    this.watchdogTimer = setTimeout(check, this.wedgedAfterMs / 3);
  }

  private run(consumer: Consumer): void {
    consumer.worker
      .run()
      .catch((error: unknown) => this.logger.error('queue consumer stopped', { queue: consumer.name, error: errorMessage(error) }));
  }

  /** Replaces each wedged consumer by a new one; the old one is force-closed (it runs nothing). */
  private async replaceWedged(): Promise<void> {
    const wedged = await this.watchdog.wedged(this.consumers, this.now());
    if (this.watchdogTimer === null) return;
    for (const old of wedged) {
      this.logger.warn('queue consumer wedged: replacing it', { queue: old.name, idleMs: this.now() - old.lastTakenAt });
      this.deps.metrics.redisError('worker');
      const fresh = this.consume(old.workload, old.name);
      this.consumers = this.consumers.map((c) => (c === old ? fresh : c));
      this.run(fresh);
      this.retired.push(closeWithin(old.worker, this.drainTimeoutMs));
    }
  }

  /** Stops taking work, lets running attempts finish within the drain timeout, then aborts the rest. */
  async stop(): Promise<void> {
    if (this.watchdogTimer) clearTimeout(this.watchdogTimer);
    this.watchdogTimer = null;
    const closed = Promise.all([...this.consumers.map((c) => c.worker.close()), ...this.retired]);
    for (const gate of this.gates.values()) gate.close();
    const drained = await within(
      closed.then(() => true),
      this.drainTimeoutMs,
      false,
    );
    if (!drained) {
      this.logger.warn('drain timeout: aborting running attempts', { drainTimeoutMs: this.drainTimeoutMs });
      this.deps.cancels.abortAll();
      await closed;
    }
  }
}

/** Force-closes a wedged consumer, and drops its connections if even that hangs past `timeoutMs`. */
async function closeWithin(worker: Worker<ExecutionMessage>, timeoutMs: number): Promise<void> {
  const closed = await within(
    worker.close(true).then(
      () => true,
      () => true,
    ),
    timeoutMs,
    false,
  );
  if (!closed) await worker.disconnect().catch(() => undefined);
}
