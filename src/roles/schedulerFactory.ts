import type { ConnectionSettings } from '../config/connectionSettings.js';
import type { SchedulerSettings } from '../config/schedulerSettings.js';
import type { RedisClient } from '../redis/redisClient.js';
import { RetentionStore } from '../store/retentionStore.js';
import { SchedulerRole, type SchedulerRoleOptions } from '../scheduler/schedulerRole.js';
import type { Database } from './connections.js';
import type { ProcessServices } from './processServices.js';
import type { SharedServices } from './sharedServices.js';

/** The settings the scheduler role reads. */
export type SchedulerConfig = SchedulerSettings & Pick<ConnectionSettings, 'redisPrefix'>;

/** Scheduler tuning beyond the configuration (tests shorten these). */
export type SchedulerTuning = Partial<
  Pick<
    SchedulerRoleOptions,
    | 'sweepEveryMs'
    | 'reconcileEveryMs'
    | 'reconcileGraceMs'
    | 'agendaProcessEveryMs'
    | 'agendaLockLifetimeMs'
    | 'misfireThresholdMs'
    | 'purgeEveryMs'
  >
>;

/** What the scheduler role is built from. */
export interface SchedulerRoleDeps {
  config: SchedulerConfig;
  runtime: ProcessServices;
  /** Agenda's collection and the executions purge. */
  database: Database;
  /** The command connection: the leader lease. */
  redis: RedisClient;
  shared: Pick<SharedServices, 'tenants' | 'materialise'>;
  tuning?: SchedulerTuning;
}

/**
 * Starts the scheduler role on connections the process owns; registers the role's stop (stand down,
 * release the lease) in the process's closers, so it stops before them.
 */
export function startSchedulerRole({ config, runtime, database, redis, shared, tuning }: SchedulerRoleDeps): SchedulerRole {
  const { clock, logger, metrics, tracer, closers, instanceId } = runtime;
  const { tenants } = shared;
  const purge = { retention: new RetentionStore(database.db), tenants: () => tenants.retentions() };
  const scheduler = new SchedulerRole(
    { db: database.db, redis, materialise: shared.materialise, purge, clock, logger, metrics, tracer },
    {
      candidateId: instanceId,
      redisPrefix: config.redisPrefix,
      leaseTtlMs: config.leaseTtlMs,
      lookAheadMs: config.lookAheadMs,
      reconcileEveryMs: config.reconcileEveryMs,
      reconcileGraceMs: config.reconcileGraceMs,
      purgeEveryMs: config.purgeEveryMs,
      ...tuning,
    },
  );
  scheduler.start();
  closers.add(() => scheduler.stop());
  return scheduler;
}
