import type { ConnectionOptions } from 'bullmq';
import type { ConnectionSettings } from '../config/connectionSettings.js';
import type { WorkerSettings } from '../config/workerSettings.js';
import type { RedisClient } from '../redis/redisClient.js';
import { RunStore } from '../store/runStore.js';
import { OverlapGuard } from '../workers/overlapGuard.js';
import { DeferredClaims } from '../workers/deferredClaims.js';
import { ConcurrencyLimiter } from '../quotas/concurrencyLimiter.js';
import { targetAgent } from '../workers/targets/targetAgent.js';
import { ChildProcessRunner } from '../workers/cpu/childProcessRunner.js';
import type { HandlerRegistry } from '../workers/handlers/handler.js';
import { WorkerRole, type WorkerRoleOptions } from '../workers/workerRole.js';
import type { Database } from './connections.js';
import type { ProcessServices } from './processServices.js';
import type { SharedServices } from './sharedServices.js';

/** The settings the worker role reads. */
export type WorkerConfig = WorkerSettings & Pick<ConnectionSettings, 'redisPrefix'>;

/** Worker tuning beyond the configuration (tests shorten the drain). */
export type WorkerTuning = Partial<Pick<WorkerRoleOptions, 'drainTimeoutMs' | 'lockDurationMs'>>;

/** What the worker role is built from. */
export interface WorkerRoleDeps {
  config: WorkerConfig;
  runtime: ProcessServices;
  database: Database;
  /** The command connection: overlap guard, tenant slots, cancels; its loss writes the deferred starts. */
  redis: RedisClient;
  /** What each queue consumer connects with (or duplicates, on a cluster). */
  consumerConnection: ConnectionOptions;
  shared: Pick<SharedServices, 'shards' | 'tenants' | 'quotas' | 'queues' | 'events' | 'cancels' | 'claims' | 'flow' | 'alerts'>;
  /** What IO_BOUND executions run in this process. */
  handlers: HandlerRegistry;
  tuning?: WorkerTuning;
}

/**
 * Starts the worker role. Owns and registers in the process's closers, in this order (so closed in
 * the reverse): the cancel subscriber, the HTTP agent, the CPU child processes, the run store's
 * pending writes, then the role itself, which drains first and closes its queue consumers.
 */
export async function startWorkerRole({ config, runtime, database, redis, consumerConnection, shared, handlers, tuning }: WorkerRoleDeps) {
  const { clock, logger, metrics, tracer, closers, instanceId } = runtime;
  const { cancels } = shared;
  closers.add(() => cancels.close());
  await cancels.start();
  const overlap = new OverlapGuard(redis, config.redisPrefix);
  const tenantSlots = new ConcurrencyLimiter(redis, config.redisPrefix, clock, shared.quotas);
  // A refusal is logged by the attempt it ended (runTarget.ts), with its tenant, job and execution.
  const dispatcher = targetAgent(config.allowPrivateTargets);
  closers.add(() => dispatcher.close());
  const cpu = new ChildProcessRunner({ handlersModule: config.handlersModule });
  // Closed after the worker has drained: kills a child that ignored its abort.
  closers.add(() => cpu.close());
  const runStore = new RunStore(database.db, clock, { updatesOneByOne: database.ferretDb });
  // Closed after the worker has stopped (closers run in reverse): writes the jobs' last lastRunAt.
  closers.add(() => runStore.close());
  const starts = new DeferredClaims(runStore, config.workerClaimAfterMs);
  // Until written, a running attempt's start is only in its Redis claim: a Redis that goes away
  // (and may come back empty) must not leave it there alone.
  redis.on('close', () => starts.writeAll());
  const worker = new WorkerRole(
    consumerConnection,
    {
      runStore,
      starts,
      tenants: shared.tenants,
      queues: shared.queues,
      events: shared.events,
      handlers,
      cpu,
      clock,
      logger,
      workerId: instanceId,
      random: Math.random,
      overlap,
      cancels,
      claims: shared.claims,
      tenantSlots,
      flow: shared.flow,
      alerts: shared.alerts,
      queueLockMs: config.queueLockMs,
      http: { dispatcher, allowPrivate: config.allowPrivateTargets },
      metrics,
      tracer,
    },
    {
      redisPrefix: config.redisPrefix,
      shards: shared.shards,
      ioConcurrency: config.workerIoConcurrency,
      cpuConcurrency: config.workerCpuConcurrency,
      tenantSharePercent: config.workerTenantSharePercent,
      lockDurationMs: config.queueLockMs,
      drainTimeoutMs: config.workerDrainMs,
      wedgedAfterMs: config.workerWedgedMs,
      ...tuning,
    },
  );
  worker.start();
  closers.add(() => worker.stop());
}
