import { LOG_LEVELS, type LogLevel } from './logger.js';
import os from 'node:os';
import { isIP } from 'node:net';
import { publicKeyAlgorithm } from './auth/publicKeyAlgorithm.js';
import type { RedisClusterTarget } from './redis/redisClient.js';

export type Role = 'api' | 'scheduler' | 'worker';
const ALL_ROLES: readonly Role[] = ['api', 'scheduler', 'worker'];

/** Everything Kairos reads from the environment, validated once at start (the README lists every setting). */
export interface KairosConfig {
  mongoUrl: string;
  /** REDIS_URL: the one Redis server, when no cluster is set. Default redis://127.0.0.1:6379. */
  redisUrl: string;
  /**
   * REDIS_CLUSTER_NODES: a Redis Cluster instead of REDIS_URL, given by seed nodes (comma-separated
   * `host:port` or `redis[s]://[user:password@]host:port`; ioredis discovers the rest). The user,
   * password and TLS of the first node apply to every node. Default: none. README "Redis Cluster".
   */
  redisCluster: RedisClusterTarget | null;
  /**
   * QUEUE_SHARDS: how many queues each workload's executions spread over, by tenant, each with its
   * own hash tag (so on a cluster each lands on one master, and masters share the queues). Default
   * 1 with one Redis (one queue per workload), 6 on a cluster (two per master of three).
   */
  queueShards: number;
  port: number;
  /**
   * HOST: the address the api (and a process's `/metrics` server) listens on. Default 127.0.0.1 in
   * development mode, so a laptop's `npm start` (often with ALLOW_PRIVATE_TARGETS on) is not reachable
   * from the network; 0.0.0.0 in production mode (the image and the chart also set it).
   */
  host: string;
  roles: Role[];
  /**
   * Token verification. `maxTtlSeconds` (JWT_MAX_TTL_SECONDS): a JWT whose `exp` lies further
   * ahead than this is refused. Default 2 592 000 (30 days).
   */
  jwt: { secret?: string; publicKey?: string; issuer?: string; audience?: string; maxTtlSeconds: number };
  allowPrivateTargets: boolean;
  /**
   * SCHEDULE_SEARCHES_PER_MINUTE: schedule searches (previewSchedule occurrences) one tenant may ask for
   * a minute, in bursts of what 10 s refill; past it previewSchedule is RATE_LIMITED. Default 3000.
   */
  scheduleSearchesPerMinute: number;
  /**
   * SCHEDULE_SEARCHES_PER_SECOND_PER_PROCESS: schedule searches one api process answers a second for
   * all tenants together, in bursts of one second's worth; past it previewSchedule is RATE_LIMITED.
   * Default 500 (at most a tenth of the event loop); at least 100, one preview of 100.
   */
  scheduleSearchesPerSecondPerProcess: number;
  /**
   * SUBSCRIPTION_EVENTS_PER_SECOND: events one tenant's subscriptions may be sent a second by one api
   * process, in bursts of one second's worth; past it the subscription that finds it spent ends with
   * RATE_LIMITED. Default 1000.
   */
  subscriptionEventsPerSecond: number;
  /**
   * RATE_LIMITED_ANSWER_DELAY_MS: a request refused for rate over HTTP is answered after its Retry-After,
   * up to this long, so a client that retries at once is paced instead of looping on refusals. 0 answers at once. Default 1000.
   */
  rateLimitedAnswerDelayMs: number;
  /**
   * API_TENANT_REQUESTS_IN_FLIGHT and API_TENANT_REQUESTS_QUEUED: one tenant's GraphQL requests over
   * HTTP and WebSocket (one gate for both) that one api process runs at once, and how many more wait
   * their turn (first come first served); one past both is answered RATE_LIMITED with Retry-After 1.
   * Defaults 4 and 100.
   */
  tenantRequests: { inFlight: number; queued: number };
  /**
   * API_TENANT_SCANS_IN_FLIGHT: one tenant's reads of its executions across all its jobs (an
   * executions page without a job, executionStats without a job) that one api process runs at once;
   * the others wait their turn. On FerretDB each loads every execution of the tenant (its sorts run
   * in FerretDB), so a few at once take the embedded server's cores from every tenant. Default 1.
   */
  tenantScansInFlight: number;
  workerIoConcurrency: number;
  workerCpuConcurrency: number;
  /**
   * The most of a worker process's slots (of each pool, IO and CPU) one tenant may hold at once,
   * in percent, rounded down and at least one slot. Default 25.
   */
  workerTenantSharePercent: number;
  /**
   * An ES module exporting `handlers` (name → async function) that workers can run, besides the
   * built-ins. CPU_BOUND executions load it in their child process. Default: none.
   */
  handlersModule: string | null;
  /**
   * The queue lock: the visibility timeout after which a dead worker's execution is taken over
   * (renewed every half while the worker lives). Default 30 s.
   */
  queueLockMs: number;
  /**
   * A new tenant's quotas; `executionRetentionDays` (default 30) is how long its finished executions are kept;
   * `maxWaitingExecutions` (DEFAULT_MAX_WAITING_EXECUTIONS, default 1000) how many of its executions may wait
   * in the queue before triggers and retries are refused.
   */
  defaultQuota: {
    maxJobs: number;
    maxConcurrentExecutions: number;
    maxExecutionsPerMinute: number;
    maxWaitingExecutions: number;
    executionRetentionDays: number;
  };
  /** Prefix of every Redis key and queue name, so several deployments (or tests) can share a Redis. Default `kairos`. */
  redisPrefix: string;
  /** A job is due when its next occurrence falls within this of now; the sweep then materialises up to twice this ahead. Default 30 s. */
  lookAheadMs: number;
  /** Leader lease TTL. Default 5 s. */
  leaseTtlMs: number;
  /** Period of the leader's reconcile job. Default 30 s. */
  reconcileEveryMs: number;
  /** How long past its time a waiting execution must be before reconcile re-enqueues it. Default 60 s. */
  reconcileGraceMs: number;
  /** Period of the leader's purge of executions past their tenant's retention. Default 5 minutes. */
  purgeEveryMs: number;
  /** How long a stopping worker lets running attempts finish before aborting them. Default 10 s. */
  workerDrainMs: number;
  /** How long a queue consumer may take nothing while its queue has entries due before it is replaced as wedged. Default 15 s. */
  workerWedgedMs: number;
  /**
   * How long an attempt runs before its start is written to MongoDB (RUNNING); an attempt that ends
   * sooner is recorded by its end alone, from the Redis attempt claim that holds its start
   * (docs/architecture.md, "The deferred claim"). 0 = write every start before the target runs. Default 1 s.
   */
  workerClaimAfterMs: number;
  /** `development` enables introspection and detailed logs; anything else is production. */
  mode: 'development' | 'production';
  /** LOG_LEVEL: the lowest level written to stderr (`info` also shows warnings and errors; `silent` none). Default `info`. */
  logLevel: LogLevel;
  /** METRICS_PORT: where every process serves `/metrics` (never on PORT: the api port answers without credentials). Default 9464; 0 picks a free port. */
  metricsPort: number;
  /**
   * METRICS_TENANT_LABEL: adds a `tenant` label to the per-execution metric families. Off by default:
   * every tenant multiplies those series (see the README's Metrics section).
   */
  metricsTenantLabel: boolean;
  /**
   * A new tenant's caps on live subscription connections, counted per api process:
   * DEFAULT_MAX_SOCKETS_PER_CREDENTIAL (20), DEFAULT_MAX_SOCKETS (100, the whole tenant),
   * DEFAULT_MAX_SUBSCRIPTIONS_PER_SOCKET (50) and DEFAULT_MAX_SUBSCRIPTIONS (200, the whole tenant).
   */
  defaultConnectionQuota: {
    maxSocketsPerCredential: number;
    maxSockets: number;
    maxSubscriptionsPerSocket: number;
    maxSubscriptions: number;
  };
  /**
   * Traces (README "Traces"). `otlpEndpoint` (OTEL_EXPORTER_OTLP_ENDPOINT): the OTLP/HTTP base URL
   * spans are exported to (`/v1/traces` is appended); unset = no tracing at all. `serviceName`
   * (OTEL_SERVICE_NAME): the resource's service.name. Default `kairos`.
   */
  tracing: { otlpEndpoint: string | null; serviceName: string };
}

/**
 * Defaults of the settings whose value other modules take as a required option: kept here alone,
 * so a module never restates one as a fallback (tests that build those modules pass these).
 */
export const CONFIG_DEFAULTS = {
  jwtMaxTtlSeconds: 30 * 24 * 3600,
  queueLockMs: 30_000,
  leaseTtlMs: 5_000,
  reconcileEveryMs: 30_000,
  reconcileGraceMs: 60_000,
  purgeEveryMs: 300_000,
  workerDrainMs: 10_000,
  workerWedgedMs: 15_000,
  workerClaimAfterMs: 1_000,
  queueShardsSingle: 1,
  queueShardsCluster: 6,
} as const;

/** Raised for invalid configuration; the message names the variable. */
export class ConfigError extends Error {}

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

/** REDIS_CLUSTER_NODES: a comma-separated list of `host:port` or redis(s) URLs. */
function clusterNodes(raw: string): RedisClusterTarget {
  const nodes: { host: string; port: number }[] = [];
  let first: URL | undefined;
  for (const item of raw
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean)) {
    let parsed: URL;
    try {
      parsed = new URL(/^[a-z]+:\/\//i.test(item) ? item : `redis://${item}`);
    } catch {
      throw new ConfigError(
        `REDIS_CLUSTER_NODES has an entry that is not host:port or a redis URL: "${item.replace(/\/\/[^@]*@/, '//***@')}"`,
      );
    }
    if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')
      throw new ConfigError('REDIS_CLUSTER_NODES entries must be host:port or start with redis:// or rediss://');
    if (!parsed.hostname) throw new ConfigError('REDIS_CLUSTER_NODES has an entry without a host');
    first ??= parsed;
    nodes.push({ host: parsed.hostname.replace(/^\[|\]$/g, ''), port: parsed.port ? Number(parsed.port) : 6379 });
  }
  if (!first) throw new ConfigError('REDIS_CLUSTER_NODES must name at least one node');
  return {
    nodes,
    ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
    ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
    tls: first.protocol === 'rediss:',
  };
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
