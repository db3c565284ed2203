import os from 'node:os';
import { randomBytes } from 'node:crypto';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { KairosConfig } from './config.js';
import { systemClock, type Clock } from './clock.js';
import { createLogger, errorMessage, type Logger } from './logger.js';
import { ensureIndexes } from './store/indexes.js';
import type { SchedulerRole } from './scheduler/schedulerRole.js';
import { loadHandlers } from './workers/handlers/loadHandlers.js';
import type { HandlerRegistry } from './workers/handlers/handler.js';
import { KairosMetrics } from './metrics/kairosMetrics.js';
import { MetricsServer } from './metrics/metricsServer.js';
import { createTracing } from './tracing/kairosTracing.js';
import { Closers } from './roles/closers.js';
import { connectDatabase, openRedisConnections } from './roles/connections.js';
import type { ProcessServices } from './roles/processServices.js';
import { sharedServices } from './roles/sharedServices.js';
import { startWorkerRole, type WorkerTuning } from './roles/workerFactory.js';
import { startSchedulerRole, type SchedulerTuning } from './roles/schedulerFactory.js';
import { startApiRole } from './roles/apiFactory.js';

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
  scheduler?: SchedulerTuning;
  /** Worker tuning beyond the configuration (tests shorten the drain). */
  worker?: WorkerTuning;
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
 * The composition root: opens the connections (and owns them: each is registered in the process's
 * closers as it opens), starts the roles named in `config.roles`, each from its factory in
 * `src/roles`, and on `stop()` closes everything once, in reverse order: the roles first, then the
 * shared services and connections, MongoDB and the tracer last.
 */
export async function startKairos(options: KairosOptions): Promise<Kairos> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger({ service: 'kairos' });
  const instanceId = `${os.hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const handlers = options.handlers ?? (await loadHandlers(config.handlersModule));
  // One registry per process (never prom-client's global one), handed to every part that records.
  const metrics = new KairosMetrics({ tenantLabel: config.metricsTenantLabel });

  // Like the metrics, one tracer per process handed to the parts that make spans (never a global provider).
  const tracing = createTracing({ ...config.tracing, instanceId, exporter: options.traceExporter });
  // Shut down after every role has stopped (closers run in reverse), so their last spans are exported.
  const closers = new Closers(logger, [() => tracing.shutdown()]);
  const database = await connectDatabase(config.mongoUrl, options.dbName, { logger, metrics }).catch(async (error: unknown) => {
    await closers.stop();
    throw error;
  });
  closers.add(() => database.client.close());
  const runtime: ProcessServices = { instanceId, clock, logger, metrics, tracer: tracing.tracer, closers };
  try {
    // FerretDB cannot use the range indexes; there they only slow every write (see EnsureIndexesOptions).
    await ensureIndexes(database.db, { rangeIndexes: !database.ferretDb, logger });
    const { redis, producerConnection, consumerConnection } = await openRedisConnections(config, runtime);
    const shared = sharedServices(config, database, { redis, producerConnection }, runtime);
    // Queue depth is read at scrape time by the processes that feed or drain the queues.
    if (config.roles.includes('worker') || config.roles.includes('scheduler')) metrics.observeQueues(() => shared.queues.depths());

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
    closers.add(() => metricsServer.stop());
    const metricsUrl = `http://${reachAt}:${metricsServer.port}/metrics`;

    if (config.roles.includes('worker')) {
      await startWorkerRole({ config, runtime, database, redis, consumerConnection, shared, handlers, tuning: options.worker });
    }
    let scheduler: SchedulerRole | null = null;
    if (config.roles.includes('scheduler')) {
      scheduler = startSchedulerRole({ config, runtime, database, redis, shared, tuning: options.scheduler });
    }
    let url: string | null = null;
    if (config.roles.includes('api')) {
      const port = await startApiRole({ config, runtime, database, redis, shared, handlerNames: new Set(handlers.keys()) });
      url = `http://${reachAt}:${port}/graphql`;
    }
    logger.info('kairos started', { roles: config.roles, url, metricsUrl, tracing: tracing.enabled });
    return { url, metricsUrl, scheduler, stop: () => closers.stop() };
  } catch (error) {
    await closers.stop();
    throw error;
  }
}
