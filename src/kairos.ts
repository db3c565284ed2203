import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { KairosConfig } from './config.js';
import { systemClock, type Clock } from './clock.js';
import { createLogger, errorMessage, type Logger } from './logger.js';
import { connectMongo } from './store/mongo.js';
import { ensureIndexes } from './store/indexes.js';
import { TenantStore } from './store/tenantStore.js';
import { SchedulerStore } from './store/schedulerStore.js';
import { RunStore } from './store/runStore.js';
import { ExecutionEventBus } from './events/executionEventBus.js';
import { ExecutionQueues } from './queue/executionQueues.js';
import type { MaterialiseDeps } from './scheduler/materialise.js';
import { SchedulerRole, type SchedulerRoleOptions } from './scheduler/schedulerRole.js';
import { WorkerRole, type WorkerRoleOptions } from './workers/workerRole.js';
import { CancelSignals } from './events/cancelSignals.js';
import { OverlapGuard } from './workers/overlapGuard.js';
import { AttemptClaims } from './workers/attemptClaims.js';
import { TenantQuotas } from './quotas/tenantQuotas.js';
import { ConcurrencyLimiter } from './quotas/concurrencyLimiter.js';
import { RateLimiter } from './quotas/rateLimiter.js';
import { targetAgent } from './workers/targets/targetAgent.js';
import { BUILTIN_HANDLERS } from './workers/handlers/builtins.js';
import type { HandlerRegistry } from './workers/handlers/handler.js';
import { ApiServer } from './api/httpServer.js';
import type { AppServices } from './api/appServices.js';
import { kairosSchema } from './schema/buildSchema.js';

export interface KairosOptions {
  config: KairosConfig;
  /** Default: the system clock. */
  clock?: Clock;
  logger?: Logger;
  /** Overrides the database named in MONGO_URL (tests use one database each). */
  dbName?: string;
  /** Handlers workers can run. Default: the built-ins (noop, sleep). */
  handlers?: HandlerRegistry;
  /** Scheduler tuning beyond the configuration (tests shorten these). */
  scheduler?: Pick<SchedulerRoleOptions, 'sweepEveryMs' | 'reconcileEvery' | 'agendaProcessEveryMs' | 'agendaLockLifetimeMs' | 'misfireThresholdMs'>;
  /** Worker tuning beyond the configuration (tests shorten the drain). */
  worker?: Pick<WorkerRoleOptions, 'drainTimeoutMs' | 'lockDurationMs'>;
  /** Host the api role listens on. Default 0.0.0.0. */
  host?: string;
}

/** A running Kairos process (any mix of roles). `stop()` closes everything it opened. */
export interface Kairos {
  /** The GraphQL endpoint, when the api role runs. */
  url: string | null;
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
  const handlers = options.handlers ?? BUILTIN_HANDLERS;

  const { client: mongo, db } = await connectMongo(config.mongoUrl, options.dbName);
  const closers: (() => Promise<unknown>)[] = [() => mongo.close()];
  const stopAll = async () => {
    for (const close of closers.reverse()) {
      await close().catch((error: unknown) => logger.warn('error while stopping', { error: errorMessage(error) }));
    }
  };
  try {
    await ensureIndexes(db);
    const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 3, lazyConnect: true });
    redis.on('error', (error) => logger.warn('redis connection error', { error: errorMessage(error) }));
    // Registered before connecting: ioredis keeps retrying after a failed connect until told to stop.
    closers.push(async () => (redis.status === 'ready' ? redis.quit() : redis.disconnect()));
    await redis.connect();
    // BullMQ opens its own connections from this; blocking ones need maxRetriesPerRequest: null.
    const bullConnection = { url: config.redisUrl, maxRetriesPerRequest: null };
    const events = new ExecutionEventBus(redis, config.redisPrefix);
    closers.push(() => events.close());
    const queues = new ExecutionQueues(bullConnection, config.redisPrefix, (error) =>
      logger.warn('queue error', { error: errorMessage(error) }),
    );
    closers.push(() => queues.close());
    const tenants = new TenantStore(db, config.defaultQuota);
    const quotas = new TenantQuotas(tenants, clock);
    const materialiseDeps: MaterialiseDeps = { store: new SchedulerStore(db), queues, events, logger, random: Math.random };

    let scheduler: SchedulerRole | null = null;
    // Every role may publish a cancel; only workers listen for them.
    const cancels = new CancelSignals(redis, config.redisPrefix);
    if (config.roles.includes('worker')) {
      closers.push(() => cancels.close());
      await cancels.start();
      const overlap = new OverlapGuard(redis, config.redisPrefix);
      const claims = new AttemptClaims(redis, config.redisPrefix);
      const tenantSlots = new ConcurrencyLimiter(redis, config.redisPrefix, clock, quotas);
      const dispatcher = targetAgent(config.allowPrivateTargets);
      closers.push(() => dispatcher.close());
      const worker = new WorkerRole(
        bullConnection,
        { runStore: new RunStore(db), tenants, queues, events, handlers, clock, logger, workerId: instanceId, random: Math.random, overlap, cancels, claims, tenantSlots, queueLockMs: config.queueLockMs, http: { dispatcher, allowPrivate: config.allowPrivateTargets } },
        logger,
        {
          redisPrefix: config.redisPrefix,
          ioConcurrency: config.workerIoConcurrency,
          cpuConcurrency: config.workerCpuConcurrency,
          lockDurationMs: config.queueLockMs,
          ...options.worker,
        },
      );
      worker.start();
      closers.push(() => worker.stop());
    }
    if (config.roles.includes('scheduler')) {
      scheduler = new SchedulerRole(db, redis, materialiseDeps, clock, logger, {
        candidateId: instanceId,
        redisPrefix: config.redisPrefix,
        leaseTtlMs: config.leaseTtlMs,
        lookAheadMs: config.lookAheadMs,
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
        jwt: config.jwt,
        tenants,
        quotas,
        rateLimiter: new RateLimiter(redis, config.redisPrefix, clock),
        events,
        cancels,
        materialise: materialiseDeps,
        handlerNames: new Set(handlers.keys()),
        lookAheadMs: config.lookAheadMs,
        development: config.mode === 'development',
      };
      const api = new ApiServer(await kairosSchema(), app, {
        port: config.port,
        host: options.host,
        ready: async () => {
          await Promise.all([db.command({ ping: 1 }), redis.ping()]);
          return true;
        },
      });
      await api.start();
      closers.push(() => api.stop());
      url = `http://127.0.0.1:${api.port}/graphql`;
    }
    logger.info('kairos started', { roles: config.roles, url });
    return { url, scheduler, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
