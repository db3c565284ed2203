import type { ConnectionOptions } from 'bullmq';
import type { KairosConfig } from '../config.js';
import { errorMessage } from '../logger.js';
import { ExecutionEventBus } from '../events/executionEventBus.js';
import { CancelSignals } from '../events/cancelSignals.js';
import { ExecutionQueues, QueueShards } from '../queue/executionQueues.js';
import { WaitingIndex } from '../queue/waitingIndex.js';
import { AttemptClaims } from '../queue/attemptClaims.js';
import { TenantStore } from '../store/tenantStore.js';
import { SchedulerStore } from '../store/schedulerStore.js';
import { TenantQuotas } from '../quotas/tenantQuotas.js';
import { RateLimiter } from '../quotas/rateLimiter.js';
import { FlowLimiter } from '../quotas/flowLimiter.js';
import { ScheduledBudget } from '../quotas/scheduledBudget.js';
import { DueIndex } from '../scheduler/dueIndex.js';
import type { MaterialiseDeps } from '../scheduler/materialise.js';
import type { RedisClient } from '../redis/redisClient.js';
import { AlertRecords } from '../store/alertRecords.js';
import { AlertEvaluator } from '../alerts/alertEvaluator.js';
import { AlertDeliveries } from '../alerts/alertDeliveries.js';
import { AlertStates } from '../alerts/alertStates.js';
import { AlertEventBus } from '../events/alertEventBus.js';
import type { Database } from './connections.js';
import type { ProcessServices } from './processServices.js';

/** What more than one role uses, made once per process over its connections (sharedServices). */
export interface SharedServices {
  /** The queue shards of each workload (QUEUE_SHARDS). */
  shards: QueueShards;
  /** Status events: every role publishes, the api relays them to subscribers. Closed by the process's closers. */
  events: ExecutionEventBus;
  /** Each tenant's waiting executions, on the command connection. */
  waitingIndex: WaitingIndex;
  /** The execution queues' producers. Closed by the process's closers. */
  queues: ExecutionQueues;
  /** Every tenant's record (quotas, retention). */
  tenants: TenantStore;
  /** The tenants' quotas, cached briefly. */
  quotas: TenantQuotas;
  rateLimiter: RateLimiter;
  /** Every role may publish a cancel; only workers listen for them (the worker role starts and closes it). */
  cancels: CancelSignals;
  /** Flow-control keys: workers take and release places, the api reads why an execution waits for one. */
  flow: FlowLimiter;
  /** Workers take attempt claims; the api reads them to tell a waiting execution whose attempt already runs. */
  claims: AttemptClaims;
  /** What materialising occurrences needs: the scheduler's sweep and the api's near-term materialisation. */
  materialise: MaterialiseDeps;
  /** Evaluates alert rules on the ends the transitions report and on the leader's overdue check; queues the deliveries. */
  alerts: AlertEvaluator;
  /** Raised alerts: the evaluator publishes, the api relays them to `alertRaised` subscribers. Closed by the process's closers. */
  alertEvents: AlertEventBus;
}

/** Builds the shared services; registers the closers of the event bus and the queues, which hold connections of their own. */
export function sharedServices(
  config: Pick<KairosConfig, 'redisPrefix' | 'queueShards' | 'defaultQuota' | 'defaultConnectionQuota' | 'alerts'>,
  { db, ferretDb }: Database,
  { redis, producerConnection }: { redis: RedisClient; producerConnection: ConnectionOptions },
  { clock, logger, metrics, closers }: ProcessServices,
): SharedServices {
  const shards = new QueueShards(config.queueShards);
  const events = new ExecutionEventBus(redis, config.redisPrefix);
  closers.add(() => events.close());
  // On the command connection, closed with it: the trigger's other Redis checks (its write rate) go
  // the same way while Redis is away, and the workers' removals share its auto-pipelined round trips.
  const waitingIndex = new WaitingIndex(redis, config.redisPrefix, shards);
  const queues = new ExecutionQueues(
    producerConnection,
    config.redisPrefix,
    (error) => {
      metrics.redisError('queue');
      logger.warn('queue error', { error: errorMessage(error) });
    },
    shards,
    waitingIndex,
  );
  closers.add(() => queues.close());
  const tenants = new TenantStore(db, { ...config.defaultQuota, ...config.defaultConnectionQuota });
  const quotas = new TenantQuotas(tenants, clock);
  const rateLimiter = new RateLimiter(redis, config.redisPrefix, clock, logger);
  const flow = new FlowLimiter(redis, config.redisPrefix, clock);
  const alertDeliveries = new AlertDeliveries(
    producerConnection,
    config.redisPrefix,
    { attempts: config.alerts.deliveryAttempts, backoffMs: config.alerts.deliveryBackoffMs },
    (error) => logger.warn('alert queue error', { error: errorMessage(error) }),
  );
  closers.add(() => alertDeliveries.close());
  const alertEvents = new AlertEventBus(redis, config.redisPrefix);
  closers.add(() => alertEvents.close());
  const alerts = new AlertEvaluator(
    {
      records: new AlertRecords(db),
      states: new AlertStates(redis, config.redisPrefix),
      rateLimiter,
      deliveries: alertDeliveries,
      announce: alertEvents,
      clock,
      logger,
    },
    { rulesCacheMs: config.alerts.rulesCacheMs, perMinute: config.alerts.perMinute },
  );
  // Closed before the queue (closers run in reverse): evaluations in flight still queue their deliveries.
  closers.add(() => alerts.close());
  const materialise: MaterialiseDeps = {
    store: new SchedulerStore(db, { updatesOneByOne: ferretDb, equalityFiltersOnly: ferretDb }),
    dueIndex: new DueIndex(redis, config.redisPrefix, (error) =>
      logger.warn("could not write the due index; the leader's next rebuild adds the job", { error: errorMessage(error) }),
    ),
    queues,
    events,
    logger,
    random: Math.random,
    budget: new ScheduledBudget(rateLimiter, quotas),
    alerts,
  };
  return {
    shards,
    events,
    waitingIndex,
    queues,
    tenants,
    quotas,
    rateLimiter,
    flow,
    cancels: new CancelSignals(redis, config.redisPrefix),
    claims: new AttemptClaims(redis, config.redisPrefix),
    materialise,
    alerts,
    alertEvents,
  };
}
