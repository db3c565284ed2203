import type { ConnectionOptions } from 'bullmq';
import type { AlertSettings } from '../config/alertSettings.js';
import type { ConnectionSettings } from '../config/connectionSettings.js';
import type { WorkerSettings } from '../config/workerSettings.js';
import { WORKLOADS } from '../domain/job.js';
import { errorMessage } from '../logger.js';
import type { RedisClient } from '../redis/redisClient.js';
import type { SchedulerRole } from '../scheduler/schedulerRole.js';
import { AlertRecords } from '../store/alertRecords.js';
import { startAlertDeliverer } from '../alerts/alertDeliverer.js';
import { OverdueCheck } from '../alerts/overdueCheck.js';
import { inSpan } from '../tracing/inSpan.js';
import { SPAN_ATTRIBUTES as A } from '../tracing/spanAttributes.js';
import { targetAgent } from '../workers/targets/targetAgent.js';
import type { Database } from './connections.js';
import type { ProcessServices } from './processServices.js';
import type { SharedServices } from './sharedServices.js';

/** What the alert side of a scheduler process is built from. */
export interface AlertRoleDeps {
  config: { alerts: AlertSettings } & Pick<ConnectionSettings, 'redisPrefix'> & Pick<WorkerSettings, 'allowPrivateTargets'>;
  runtime: ProcessServices;
  database: Database;
  /** The command connection: the overdue check's reads. */
  redis: RedisClient;
  /** What the alert queue's consumer connects with. */
  consumerConnection: ConnectionOptions;
  shared: Pick<SharedServices, 'shards' | 'tenants' | 'alerts'>;
  /** Whose leadership the overdue check follows. */
  scheduler: Pick<SchedulerRole, 'isLeader'>;
}

/**
 * Starts, in a scheduler process, the consumer of the alert queue (every scheduler process: an
 * alert that the workers are down must not wait for them) and the overdue check, which runs on the
 * leader only, every ALERT_OVERDUE_CHECK_MS. Registers their stops in the process's closers.
 */
export function startAlertRole({ config, runtime, database, redis, consumerConnection, shared, scheduler }: AlertRoleDeps): void {
  const { clock, logger, closers, tracer } = runtime;
  const dispatcher = targetAgent(config.allowPrivateTargets);
  closers.add(() => dispatcher.close());
  const deliverer = startAlertDeliverer(consumerConnection, config.redisPrefix, {
    records: new AlertRecords(database.db),
    tenants: shared.tenants,
    http: { dispatcher, allowPrivate: config.allowPrivateTargets },
    clock,
    logger,
  });
  closers.add(() => deliverer.close());
  const queues = WORKLOADS.flatMap((w) => shared.shards.names(w));
  const overdue = new OverdueCheck(redis, config.redisPrefix, queues, shared.alerts, logger);
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    if (!scheduler.isLeader) return overdue.reset();
    // A span per pass, like the sweep's: what the check costs shows beside what the sweep costs.
    running = inSpan(tracer, 'alerts.overdue_check', {}, async (span) => {
      const { read, overdue: found } = await overdue.check(clock());
      span.setAttributes({ [A.overdueRead]: read, [A.overdueFound]: found });
    })
      .catch((error: unknown) => logger.warn('overdue check failed', { error: errorMessage(error) }))
      .finally(() => (running = null));
  }, config.alerts.overdueCheckMs);
  closers.add(async () => {
    clearInterval(timer);
    await running;
  });
}
