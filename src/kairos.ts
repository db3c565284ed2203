import os from 'node:os';
import { randomBytes } from 'node:crypto';
import type { KairosConfig } from './config.js';
import { systemClock, within, type Clock } from './clock.js';
import { createLogger, errorMessage, type Logger } from './logger.js';
import { connectMongo } from './store/mongo.js';
import { ensureIndexes } from './store/indexes.js';
import { TenantStore } from './store/tenantStore.js';
import { SchedulerStore } from './store/schedulerStore.js';
import { RunStore } from './store/runStore.js';
import { RetentionStore } from './store/retentionStore.js';
import { ExecutionEventBus } from './events/executionEventBus.js';
import { ExecutionQueues, QueueShards } from './queue/executionQueues.js';
import { WaitingIndex } from './queue/waitingIndex.js';
import { createRedisClient, type RedisClient, type RedisTarget } from './redis/redisClient.js';
import type { ConnectionOptions } from 'bullmq';
import type { MaterialiseDeps } from './scheduler/materialise.js';
import { SchedulerRole, type SchedulerRoleOptions } from './scheduler/schedulerRole.js';
import { DueIndex } from './scheduler/dueIndex.js';
import { WorkerRole, type WorkerRoleOptions } from './workers/workerRole.js';
import { CancelSignals } from './events/cancelSignals.js';
import { RelayedExecutions } from './events/relayedExecutions.js';
import { OverlapGuard } from './workers/overlapGuard.js';
import { AttemptClaims } from './queue/attemptClaims.js';
import { DeferredClaims } from './workers/deferredClaims.js';
import { TenantQuotas } from './quotas/tenantQuotas.js';
import { ConcurrencyLimiter } from './quotas/concurrencyLimiter.js';
import { RateLimiter } from './quotas/rateLimiter.js';
import { ProcessSearchBudget } from './quotas/processSearchBudget.js';
import { TenantRequestGate } from './api/tenantRequestGate.js';
import { ScheduleSearchBudget } from './quotas/scheduleSearchBudget.js';
import { EventDeliveryBudget } from './quotas/eventDeliveryBudget.js';
import { ScheduledBudget } from './quotas/scheduledBudget.js';
import { TenantLock } from './quotas/tenantLock.js';
import { JobCounter } from './quotas/jobCounter.js';
import { targetAgent } from './workers/targets/targetAgent.js';
import { loadHandlers } from './workers/handlers/loadHandlers.js';
import { ChildProcessRunner } from './workers/cpu/childProcessRunner.js';
import type { HandlerRegistry } from './workers/handlers/handler.js';
import { ApiServer } from './api/httpServer.js';
import type { AppServices } from './resolvers/appServices.js';
import { AuthFailureLog } from './auth/authFailureLog.js';
import { kairosSchema } from './api/buildSchema.js';
import { KairosMetrics } from './metrics/kairosMetrics.js';
import { MetricsServer } from './metrics/metricsServer.js';
import { createTracing } from './tracing/kairosTracing.js';
import type { SpanExporter } from '@opentelemetry/sdk-trace';

const READY_TIMEOUT_MS = 2000;

export interface KairosOptions {
  config: KairosConfig;
  /** Default: the system clock. */
  clock?: Clock;
  logger?: Logger;
  /** Overrides the database named in MONGO_URL (tests use one database each). */
  dbName?: string;
  /**
   * Handlers IO_BOUND executions run in this process. Default: the built-ins plus config
   * HANDLERS_MODULE, which is also what CPU_BOUND executions run in their child processes.
   */
  handlers?: HandlerRegistry;
  /** Scheduler tuning beyond the configuration (tests shorten these). */
  scheduler?: Partial<
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
  /** Worker tuning beyond the configuration (tests shorten the drain). */
  worker?: Partial<Pick<WorkerRoleOptions, 'drainTimeoutMs' | 'lockDurationMs'>>;
  /**
   * Spans go to this exporter, each as it ends, whatever OTEL_EXPORTER_OTLP_ENDPOINT says (tests
   * pass an InMemorySpanExporter). `stop()` shuts it down, which empties an in-memory one.
   */
  traceExporter?: SpanExporter;
}

/** A running Kairos process (any mix of roles). `stop()` closes everything it opened. */
export interface Kairos {
  /** The GraphQL endpoint, when the api role runs. */
  url: string | null;
  /** Where this process serves `/metrics`: METRICS_PORT, whatever its roles (never the api port). */
  metricsUrl: string;
  scheduler: SchedulerRole | null;
  stop(): Promise<void>;
}

/**
 * The composition root: opens the connections (and owns them), wires the roles named in
 * `config.roles`, and closes everything in reverse order on `stop()`.
 */
export async function startKairos(options: KairosOptions): Promise<Kairos> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger({ service: 'kairos' });
  const instanceId = `${os.hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const handlers = options.handlers ?? (await loadHandlers(config.handlersModule));
  // One registry per process (never prom-client's global one), handed to every part that records.
  const metrics = new KairosMetrics({ tenantLabel: config.metricsTenantLabel });

  const { client: mongo, db, ferretDb } = await connectMongo(config.mongoUrl, options.dbName);
  logger.info('connected to the database', { server: ferretDb ? 'ferretdb' : 'mongodb', maxPoolSize: mongo.options.maxPoolSize });
  mongo.on('serverHeartbeatFailed', () => metrics.mongoError('heartbeat'));
  // Like the metrics, one tracer per process handed to the parts that make spans (never a global provider).
  const tracing = createTracing({ ...config.tracing, instanceId, exporter: options.traceExporter });
  // Shut down after every role has stopped (closers run in reverse), so their last spans are exported.
  const closers: (() => Promise<unknown>)[] = [() => mongo.close(), () => tracing.shutdown()];
  // Once: a second stop() waits for the first instead of closing everything again.
  let stopping: Promise<void> | null = null;
  const stopAll = () =>
    (stopping ??= (async () => {
      for (const close of [...closers].reverse()) {
        await close().catch((error: unknown) => logger.warn('error while stopping', { error: errorMessage(error) }));
      }
    })());
  try {
    // FerretDB cannot use the range indexes; there they only slow every write (see EnsureIndexesOptions).
    await ensureIndexes(db, { rangeIndexes: !ferretDb });
    const target: RedisTarget = { url: config.redisUrl, cluster: config.redisCluster };
    /** A client of this process, closed with it (registered before connecting: ioredis keeps retrying after a failed connect until told to stop). */
    const openRedis = async (options: Parameters<typeof createRedisClient>[1], onError: (error: Error) => void): Promise<RedisClient> => {
      const client = createRedisClient(target, options);
      client.on('error', onError);
      closers.push(async () => (client.status === 'ready' ? client.quit() : client.disconnect()));
      await client.connect();
      return client;
    };
    // Auto-pipelined: the worker's per-execution commands of many executions share round trips (redisClient.ts).
    const redis = await openRedis({ maxRetriesPerRequest: 3, autoPipelining: true }, (error) => {
      metrics.redisError('main');
      logger.warn('redis connection error', { error: errorMessage(error) });
    });
    const shards = new QueueShards(config.queueShards);
    // BullMQ opens its own connections from options (one Redis), or shares and duplicates a client
    // (a cluster: BullMQ cannot make a Cluster client from options). Blocking consumers need
    // maxRetriesPerRequest: null; producers fail at once while Redis is unreachable (no offline queue).
    let producerConnection: ConnectionOptions = { url: config.redisUrl, maxRetriesPerRequest: null };
    let consumerConnection: ConnectionOptions = producerConnection;
    if (config.redisCluster) {
      // Its errors reach every queue sharing it, which reports them (below); ioredis wants a listener of its own too.
      producerConnection = await openRedis({ maxRetriesPerRequest: null, enableOfflineQueue: false }, () => undefined);
      // Only a template: every consumer duplicates it (lazily connected, so this one never connects).
      consumerConnection = createRedisClient(target, { maxRetriesPerRequest: null });
    }
    const events = new ExecutionEventBus(redis, config.redisPrefix);
    closers.push(() => events.close());
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
    // Queue depth is read at scrape time by the processes that feed or drain the queues.
    if (config.roles.includes('worker') || config.roles.includes('scheduler')) metrics.observeQueues(() => queues.depths());
    closers.push(() => queues.close());
    const tenants = new TenantStore(db, { ...config.defaultQuota, ...config.defaultConnectionQuota });
    const quotas = new TenantQuotas(tenants, clock);
    const rateLimiter = new RateLimiter(redis, config.redisPrefix, clock, logger);
    const materialiseDeps: MaterialiseDeps = {
      store: new SchedulerStore(db, { updatesOneByOne: ferretDb, equalityFiltersOnly: ferretDb }),
      dueIndex: new DueIndex(redis, config.redisPrefix, (error) =>
        logger.warn("could not write the due index; the leader's next rebuild adds the job", { error: errorMessage(error) }),
      ),
      queues,
      events,
      logger,
      random: Math.random,
      budget: new ScheduledBudget(rateLimiter, quotas),
    };

    // Where this process's servers are reached: on loopback when they listen on every interface.
    const reachAt = ['0.0.0.0', '::'].includes(config.host) ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
    // One per process, whatever its roles; not on the api's port, which answers unauthenticated callers.
    // Bound before any role starts, so a taken METRICS_PORT fails the start before a worker claims anything.
    const metricsServer = new MetricsServer(metrics, {
      port: config.metricsPort,
      host: config.host,
      onError: (error) => logger.warn('could not serve metrics', { error: errorMessage(error) }),
    });
    await metricsServer.start();
    closers.push(() => metricsServer.stop());
    const metricsUrl = `http://${reachAt}:${metricsServer.port}/metrics`;

    let scheduler: SchedulerRole | null = null;
    // Every role may publish a cancel; only workers listen for them.
    const cancels = new CancelSignals(redis, config.redisPrefix);
    // Workers take attempt claims; the api reads them to tell a waiting execution whose attempt already runs.
    const claims = new AttemptClaims(redis, config.redisPrefix);
    if (config.roles.includes('worker')) {
      closers.push(() => cancels.close());
      await cancels.start();
      const overlap = new OverlapGuard(redis, config.redisPrefix);
      const tenantSlots = new ConcurrencyLimiter(redis, config.redisPrefix, clock, quotas);
      // A refusal is logged by the attempt it ended (runExecution), with its tenant, job and execution.
      const dispatcher = targetAgent(config.allowPrivateTargets);
      closers.push(() => dispatcher.close());
      const cpu = new ChildProcessRunner({ handlersModule: config.handlersModule });
      // Closed after the worker has drained: kills a child that ignored its abort.
      closers.push(() => cpu.close());
      const runStore = new RunStore(db, clock, { updatesOneByOne: ferretDb });
      // Closed after the worker has stopped (closers run in reverse): writes the jobs' last lastRunAt.
      closers.push(() => runStore.close());
      const starts = new DeferredClaims(runStore, config.workerClaimAfterMs);
      // Until written, a running attempt's start is only in its Redis claim: a Redis that goes away
      // (and may come back empty) must not leave it there alone.
      redis.on('close', () => starts.writeAll());
      const worker = new WorkerRole(
        consumerConnection,
        {
          runStore,
          starts,
          tenants,
          queues,
          events,
          handlers,
          cpu,
          clock,
          logger,
          workerId: instanceId,
          random: Math.random,
          overlap,
          cancels,
          claims,
          tenantSlots,
          queueLockMs: config.queueLockMs,
          http: { dispatcher, allowPrivate: config.allowPrivateTargets },
          metrics,
          tracer: tracing.tracer,
        },
        logger,
        {
          redisPrefix: config.redisPrefix,
          shards,
          ioConcurrency: config.workerIoConcurrency,
          cpuConcurrency: config.workerCpuConcurrency,
          tenantSharePercent: config.workerTenantSharePercent,
          lockDurationMs: config.queueLockMs,
          drainTimeoutMs: config.workerDrainMs,
          wedgedAfterMs: config.workerWedgedMs,
          ...options.worker,
        },
      );
      worker.start();
      closers.push(() => worker.stop());
    }
    if (config.roles.includes('scheduler')) {
      const purge = { retention: new RetentionStore(db), tenants: () => tenants.retentions() };
      scheduler = new SchedulerRole(db, redis, materialiseDeps, purge, clock, logger, {
        candidateId: instanceId,
        redisPrefix: config.redisPrefix,
        leaseTtlMs: config.leaseTtlMs,
        lookAheadMs: config.lookAheadMs,
        reconcileEveryMs: config.reconcileEveryMs,
        reconcileGraceMs: config.reconcileGraceMs,
        purgeEveryMs: config.purgeEveryMs,
        metrics,
        tracer: tracing.tracer,
        ...options.scheduler,
      });
      scheduler.start();
      const role = scheduler;
      closers.push(() => role.stop());
    }
    let url: string | null = null;
    if (config.roles.includes('api')) {
      const app: AppServices = {
        db,
        clock,
        logger,
        authFailures: new AuthFailureLog(logger, clock),
        jwt: config.jwt,
        tenants,
        quotas,
        rateLimiter,
        searchBudget: new ScheduleSearchBudget(
          rateLimiter,
          config.scheduleSearchesPerMinute,
          new ProcessSearchBudget(config.scheduleSearchesPerSecondPerProcess, clock),
        ),
        eventBudget: new EventDeliveryBudget(config.subscriptionEventsPerSecond, clock),
        // Nested in a request's turn, so the waiting are already bounded by the request gate's.
        tenantScans: new TenantRequestGate({ inFlight: config.tenantScansInFlight, queued: 10_000 }),
        createJobLock: new TenantLock(redis, config.redisPrefix, 'create-job', logger),
        jobCounter: new JobCounter(redis, config.redisPrefix),
        events,
        queues,
        waitingIndex,
        statusPublisher: events,
        relayedExecutions: new RelayedExecutions(),
        cancels,
        claims,
        materialise: materialiseDeps,
        handlerNames: new Set(handlers.keys()),
        allowPrivateTargets: config.allowPrivateTargets,
        lookAheadMs: config.lookAheadMs,
        development: config.mode === 'development',
        metrics,
        tracer: tracing.tracer,
      };
      const api = new ApiServer(await kairosSchema(), app, {
        port: config.port,
        host: config.host,
        paceRefusalsMs: config.rateLimitedAnswerDelayMs,
        tenantRequests: config.tenantRequests,
        // A paused server never answers: a probe must not hang for the socket timeout.
        ready: () =>
          within(
            Promise.all([db.command({ ping: 1 }), redis.ping()]).then(() => true),
            READY_TIMEOUT_MS,
            false,
          ),
      });
      await api.start();
      closers.push(() => api.stop());
      url = `http://${reachAt}:${api.port}/graphql`;
    }
    logger.info('kairos started', { roles: config.roles, url, metricsUrl, tracing: tracing.enabled });
    return { url, metricsUrl, scheduler, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
