import { LOG_LEVELS, type LogLevel } from './logger.js';
import os from 'node:os';
import { isIP } from 'node:net';
import { publicKeyAlgorithm } from './auth/publicKeyAlgorithm.js';
import { ALL_ROLES, type KairosConfig, type Role } from './config/kairosConfig.js';
import { CONFIG_DEFAULTS } from './config/configDefaults.js';
import { ConfigError } from './config/configError.js';
import { clusterNodes } from './config/redisClusterNodes.js';

// The settings' types and TSDoc are in src/config/, by the part that reads them; this file alone reads the environment.
export type { KairosConfig, Role } from './config/kairosConfig.js';
export { CONFIG_DEFAULTS } from './config/configDefaults.js';
export { ConfigError } from './config/configError.js';

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = /^-?\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

function logLevel(env: Env): LogLevel {
  const value = (env.LOG_LEVEL || 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(value))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
  return value as LogLevel;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function url(env: Env, name: string, fallback: string, schemes: string[]): string {
  const raw = env[name] || fallback;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!schemes.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${schemes.join(' or ')}`);
  }
  return raw;
}

/** HOST: an IP address (`0.0.0.0`, `::`, `127.0.0.1`) or a host name; anything else would fail only at listen time. */
function host(env: Env, fallback: string): string {
  const raw = env.HOST;
  if (raw === undefined || raw === '') return fallback;
  if (isIP(raw) === 0 && !/^[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*$/.test(raw))
    throw new ConfigError(`HOST must be an IP address or a host name, got "${raw}"`);
  return raw;
}

/**
 * Reads and validates the environment (with `overrides` on top, for tools that run Kairos with
 * settings of their own). The only place in Kairos that looks at `process.env`.
 */
export function loadConfig(env: Env = process.env, overrides: Env = {}): KairosConfig {
  if (Object.keys(overrides).length > 0) env = { ...env, ...overrides };
  const roles = (env.ROLES || ALL_ROLES.join(','))
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  if (roles.length === 0) throw new ConfigError(`ROLES must name at least one of ${ALL_ROLES.join(', ')}`);
  for (const role of roles) {
    if (!ALL_ROLES.includes(role as Role)) {
      throw new ConfigError(`ROLES may contain only ${ALL_ROLES.join(', ')}; got "${role}"`);
    }
  }
  const secret = env.JWT_SECRET || undefined;
  // A PEM in one environment line often has its line breaks written as \n.
  const publicKey = env.JWT_PUBLIC_KEY?.replace(/\\n/g, '\n') || undefined;
  if (!secret && !publicKey) throw new ConfigError('JWT_SECRET or JWT_PUBLIC_KEY is required');
  if (secret && publicKey) throw new ConfigError('Set only one of JWT_SECRET (HS256) and JWT_PUBLIC_KEY (RS256/ES256)');
  if (secret && secret.length < 16) throw new ConfigError('JWT_SECRET must be at least 16 characters');
  if (publicKey && !publicKeyAlgorithm(publicKey))
    throw new ConfigError('JWT_PUBLIC_KEY must be a PEM public key: RSA (RS256) or EC P-256 (ES256)');
  const mode = env.KAIROS_MODE || (env.NODE_ENV === 'production' ? 'production' : 'development');
  if (mode !== 'development' && mode !== 'production') {
    throw new ConfigError(`KAIROS_MODE must be development or production, got "${mode}"`);
  }
  const prefix = env.REDIS_PREFIX || 'kairos';
  // No braces either: a `{` in the prefix would become every key's hash tag on a cluster.
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(prefix)) throw new ConfigError('REDIS_PREFIX may contain only letters, digits, _ and -');
  const redisCluster = env.REDIS_CLUSTER_NODES ? clusterNodes(env.REDIS_CLUSTER_NODES) : null;
  return {
    mongoUrl: url(env, 'MONGO_URL', 'mongodb://127.0.0.1:27017/kairos', ['mongodb:', 'mongodb+srv:']),
    redisUrl: url(env, 'REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
    redisCluster,
    queueShards: int(env, 'QUEUE_SHARDS', redisCluster ? CONFIG_DEFAULTS.queueShardsCluster : CONFIG_DEFAULTS.queueShardsSingle, 1, 256),
    port: int(env, 'PORT', 4000, 0, 65535),
    host: host(env, mode === 'production' ? '0.0.0.0' : '127.0.0.1'),
    roles: [...new Set(roles as Role[])],
    jwt: {
      secret,
      publicKey,
      issuer: env.JWT_ISSUER || undefined,
      audience: env.JWT_AUDIENCE || undefined,
      maxTtlSeconds: int(env, 'JWT_MAX_TTL_SECONDS', CONFIG_DEFAULTS.jwtMaxTtlSeconds, 60, 10 * 365 * 24 * 3600),
    },
    allowPrivateTargets: bool(env, 'ALLOW_PRIVATE_TARGETS', false),
    // At least 600: a burst (10 s worth) must hold one preview of 100.
    scheduleSearchesPerMinute: int(env, 'SCHEDULE_SEARCHES_PER_MINUTE', 3000, 600, 10_000_000),
    scheduleSearchesPerSecondPerProcess: int(env, 'SCHEDULE_SEARCHES_PER_SECOND_PER_PROCESS', 500, 100, 10_000_000),
    subscriptionEventsPerSecond: int(env, 'SUBSCRIPTION_EVENTS_PER_SECOND', 1000, 1, 10_000_000),
    rateLimitedAnswerDelayMs: int(env, 'RATE_LIMITED_ANSWER_DELAY_MS', 1000, 0, 60_000),
    tenantRequests: {
      inFlight: int(env, 'API_TENANT_REQUESTS_IN_FLIGHT', 4, 1, 10_000),
      queued: int(env, 'API_TENANT_REQUESTS_QUEUED', 100, 0, 1_000_000),
    },
    tenantScansInFlight: int(env, 'API_TENANT_SCANS_IN_FLIGHT', 1, 1, 10_000),
    bulk: {
      maxExecutions: int(env, 'BULK_MAX_EXECUTIONS', 10_000, 1, 100_000),
      executionsPerSecond: int(env, 'BULK_EXECUTIONS_PER_SECOND', 200, 1, 10_000),
      operationsPerProcess: int(env, 'BULK_OPERATIONS_PER_PROCESS', 2, 1, 100),
      leaseMs: int(env, 'BULK_LEASE_MS', 15_000, 1000, 600_000),
      claimEveryMs: int(env, 'BULK_CLAIM_EVERY_MS', 5000, 100, 600_000),
    },
    alerts: {
      perMinute: int(env, 'ALERTS_PER_MINUTE', 60, 1, 100_000),
      rulesCacheMs: int(env, 'ALERT_RULES_CACHE_MS', 10_000, 0, 600_000),
      overdueCheckMs: int(env, 'ALERT_OVERDUE_CHECK_MS', 5000, 100, 600_000),
      deliveryAttempts: int(env, 'ALERT_DELIVERY_ATTEMPTS', 5, 1, 20),
      deliveryBackoffMs: int(env, 'ALERT_DELIVERY_BACKOFF_MS', 2000, 10, 600_000),
    },
    backfill: {
      maxOccurrences: int(env, 'BACKFILL_MAX_OCCURRENCES', 500, 1, 10_000),
      executionsPerSecond: int(env, 'BACKFILL_EXECUTIONS_PER_SECOND', 2, 1, 1000),
    },
    workerIoConcurrency: int(env, 'WORKER_IO_CONCURRENCY', 1000, 1, 10000),
    workerCpuConcurrency: int(env, 'WORKER_CPU_CONCURRENCY', os.availableParallelism(), 1, 1024),
    workerTenantSharePercent: int(env, 'WORKER_TENANT_SHARE_PERCENT', 25, 1, 100),
    handlersModule: env.HANDLERS_MODULE || null,
    queueLockMs: int(env, 'QUEUE_LOCK_MS', CONFIG_DEFAULTS.queueLockMs, 1000, 3_600_000),
    defaultQuota: {
      maxJobs: int(env, 'DEFAULT_MAX_JOBS', 1000, 0),
      maxConcurrentExecutions: int(env, 'DEFAULT_MAX_CONCURRENT_EXECUTIONS', 100, 1),
      maxExecutionsPerMinute: int(env, 'DEFAULT_MAX_EXECUTIONS_PER_MINUTE', 600, 1),
      maxWaitingExecutions: int(env, 'DEFAULT_MAX_WAITING_EXECUTIONS', 1000, 1),
      executionRetentionDays: int(env, 'DEFAULT_EXECUTION_RETENTION_DAYS', 30, 1, 36_500),
    },
    redisPrefix: prefix,
    lookAheadMs: int(env, 'LOOK_AHEAD_MS', 30_000, 1000, 3_600_000),
    leaseTtlMs: int(env, 'LEASE_TTL_MS', CONFIG_DEFAULTS.leaseTtlMs, 1000, 600_000),
    reconcileEveryMs: int(env, 'RECONCILE_EVERY_MS', CONFIG_DEFAULTS.reconcileEveryMs, 500, 86_400_000),
    reconcileGraceMs: int(env, 'RECONCILE_GRACE_MS', CONFIG_DEFAULTS.reconcileGraceMs, 0, 86_400_000),
    purgeEveryMs: int(env, 'PURGE_EVERY_MS', CONFIG_DEFAULTS.purgeEveryMs, 1000, 86_400_000),
    workerDrainMs: int(env, 'WORKER_DRAIN_MS', CONFIG_DEFAULTS.workerDrainMs, 0, 3_600_000),
    workerWedgedMs: int(env, 'WORKER_WEDGED_MS', CONFIG_DEFAULTS.workerWedgedMs, 1000, 3_600_000),
    workerClaimAfterMs: int(env, 'WORKER_CLAIM_AFTER_MS', CONFIG_DEFAULTS.workerClaimAfterMs, 0, 60_000),
    mode,
    logLevel: logLevel(env),
    metricsPort: int(env, 'METRICS_PORT', 9464, 0, 65535),
    metricsTenantLabel: bool(env, 'METRICS_TENANT_LABEL', false),
    defaultConnectionQuota: {
      maxSocketsPerCredential: int(env, 'DEFAULT_MAX_SOCKETS_PER_CREDENTIAL', 20, 1, 100_000),
      maxSockets: int(env, 'DEFAULT_MAX_SOCKETS', 100, 1, 100_000),
      maxSubscriptionsPerSocket: int(env, 'DEFAULT_MAX_SUBSCRIPTIONS_PER_SOCKET', 50, 1, 100_000),
      maxSubscriptions: int(env, 'DEFAULT_MAX_SUBSCRIPTIONS', 200, 1, 1_000_000),
    },
    tracing: {
      otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT ? url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', '', ['http:', 'https:']) : null,
      serviceName: env.OTEL_SERVICE_NAME || 'kairos',
    },
  };
}
