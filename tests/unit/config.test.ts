// Covers: src/config/configDefaults.ts, src/config/configError.ts, src/config/kairosConfig.ts, src/config/redisClusterNodes.ts
import { describe, expect, it } from '@jest/globals';
import os from 'node:os';
import { generateKeyPairSync } from 'node:crypto';
import { ConfigError, loadConfig } from '../../src/config.js';

const SECRET = 'a-secret-of-32-characters-length';
const PEM = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();

function configError(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig(${JSON.stringify(env)}) did not throw`);
}

describe('loadConfig defaults', () => {
  const config = loadConfig({ JWT_SECRET: SECRET });

  it('connects to the local MongoDB and Redis', () => {
    expect(config.mongoUrl).toBe('mongodb://127.0.0.1:27017/kairos');
    expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(config.redisCluster).toBeNull();
  });

  it('keeps one queue per workload on one Redis', () => {
    expect(config.queueShards).toBe(1);
  });

  it('listens on port 4000 and runs every role', () => {
    expect(config.port).toBe(4000);
    expect(config.roles).toEqual(['api', 'scheduler', 'worker']);
  });

  it('listens on loopback only in development mode, on every interface in production mode, and where HOST says', () => {
    expect(config.host).toBe('127.0.0.1');
    expect(loadConfig({ JWT_SECRET: SECRET, NODE_ENV: 'production' }).host).toBe('0.0.0.0');
    expect(loadConfig({ JWT_SECRET: SECRET, KAIROS_MODE: 'production' }).host).toBe('0.0.0.0');
    expect(loadConfig({ JWT_SECRET: SECRET, HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(loadConfig({ JWT_SECRET: SECRET, NODE_ENV: 'production', HOST: '10.1.2.3' }).host).toBe('10.1.2.3');
    expect(loadConfig({ JWT_SECRET: SECRET, HOST: '::' }).host).toBe('::');
    expect(loadConfig({ JWT_SECRET: SECRET, HOST: 'kairos-api.internal' }).host).toBe('kairos-api.internal');
    expect(loadConfig({ JWT_SECRET: SECRET, HOST: '' }).host).toBe('127.0.0.1');
  });

  it('keeps the JWT secret and leaves issuer, audience and public key unset', () => {
    expect(config.jwt).toEqual({ secret: SECRET, publicKey: undefined, issuer: undefined, audience: undefined, maxTtlSeconds: 2_592_000 });
  });

  it('refuses private targets and sizes workers at 1000 IO slots, one CPU slot per core and a quarter of each for one tenant', () => {
    expect(config.allowPrivateTargets).toBe(false);
    expect(config.scheduleSearchesPerMinute).toBe(3000);
    expect(config.scheduleSearchesPerSecondPerProcess).toBe(500);
    expect(config.subscriptionEventsPerSecond).toBe(1000);
    expect(config.rateLimitedAnswerDelayMs).toBe(1000);
    expect(config.workerIoConcurrency).toBe(1000);
    expect(config.workerTenantSharePercent).toBe(25);
    // The sizing rule (docs/using-the-api.md, Quotas and limits): a tenant at the default quota holds at most a tenth of one worker.
    expect(config.defaultQuota.maxConcurrentExecutions).toBeLessThanOrEqual(config.workerIoConcurrency / 10);
    expect(config.workerCpuConcurrency).toBe(os.availableParallelism());
  });

  it('gives a new tenant 1000 jobs, 100 running executions, 600 executions per minute and 1000 waiting', () => {
    expect(config.defaultQuota).toEqual({
      maxJobs: 1000,
      maxConcurrentExecutions: 100,
      maxExecutionsPerMinute: 600,
      maxWaitingExecutions: 1000,
      executionRetentionDays: 30,
    });
    expect(config.purgeEveryMs).toBe(300_000);
  });

  it('caps a new tenant at 20 sockets a credential, 100 a tenant, 50 subscriptions a socket and 200 a tenant', () => {
    expect(config.defaultConnectionQuota).toEqual({
      maxSocketsPerCredential: 20,
      maxSockets: 100,
      maxSubscriptionsPerSocket: 50,
      maxSubscriptions: 200,
    });
  });

  it('uses the documented internal defaults', () => {
    expect(config.redisPrefix).toBe('kairos');
    expect(config.lookAheadMs).toBe(30_000);
    expect(config.leaseTtlMs).toBe(5_000);
    expect(config.queueLockMs).toBe(30_000);
    expect(config.reconcileEveryMs).toBe(30_000);
    expect(config.reconcileGraceMs).toBe(60_000);
    expect(config.workerDrainMs).toBe(10_000);
    expect(config.workerWedgedMs).toBe(15_000);
    expect(config.workerClaimAfterMs).toBe(1000);
    expect(config.handlersModule).toBeNull();
    expect(config.alerts).toEqual({
      perMinute: 60,
      rulesCacheMs: 10_000,
      overdueCheckMs: 5000,
      deliveryAttempts: 5,
      deliveryBackoffMs: 2000,
    });
    expect(config.mode).toBe('development');
  });

  it('lets one backfill create 500 occurrences at most, started 2 a second', () => {
    expect(config.backfill).toEqual({ maxOccurrences: 500, executionsPerSecond: 2 });
  });

  it('traces nothing without OTEL_EXPORTER_OTLP_ENDPOINT; the service is called kairos', () => {
    expect(config.tracing).toEqual({ otlpEndpoint: null, serviceName: 'kairos' });
  });

  it('treats empty strings as unset', () => {
    const empty = loadConfig({
      JWT_SECRET: SECRET,
      MONGO_URL: '',
      REDIS_URL: '',
      PORT: '',
      ROLES: '',
      ALLOW_PRIVATE_TARGETS: '',
      WORKER_IO_CONCURRENCY: '',
      JWT_ISSUER: '',
      OTEL_EXPORTER_OTLP_ENDPOINT: '',
      OTEL_SERVICE_NAME: '',
    });
    expect(empty.mongoUrl).toBe('mongodb://127.0.0.1:27017/kairos');
    expect(empty.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(empty.port).toBe(4000);
    expect(empty.roles).toEqual(['api', 'scheduler', 'worker']);
    expect(empty.allowPrivateTargets).toBe(false);
    expect(empty.workerIoConcurrency).toBe(1000);
    expect(empty.tenantRequests).toEqual({ inFlight: 4, queued: 100 });
    expect(empty.tenantScansInFlight).toBe(1);
    expect(empty.jwt.issuer).toBeUndefined();
    expect(empty.tracing).toEqual({ otlpEndpoint: null, serviceName: 'kairos' });
  });
});

describe('loadConfig with explicit values', () => {
  it('reads every variable', () => {
    const config = loadConfig({
      MONGO_URL: 'mongodb+srv://user:pw@cluster0.example.net/jobs',
      REDIS_URL: 'rediss://cache.example.net:6380/2',
      PORT: '8080',
      ROLES: ' worker , api,worker',
      JWT_PUBLIC_KEY: PEM,
      JWT_ISSUER: 'https://issuer.example',
      JWT_AUDIENCE: 'kairos',
      JWT_MAX_TTL_SECONDS: '86400',
      ALLOW_PRIVATE_TARGETS: 'true',
      SCHEDULE_SEARCHES_PER_MINUTE: '1200',
      SCHEDULE_SEARCHES_PER_SECOND_PER_PROCESS: '250',
      SUBSCRIPTION_EVENTS_PER_SECOND: '50',
      RATE_LIMITED_ANSWER_DELAY_MS: '0',
      API_TENANT_REQUESTS_IN_FLIGHT: '16',
      API_TENANT_REQUESTS_QUEUED: '0',
      API_TENANT_SCANS_IN_FLIGHT: '2',
      BULK_MAX_EXECUTIONS: '500',
      BULK_EXECUTIONS_PER_SECOND: '50',
      BULK_OPERATIONS_PER_PROCESS: '3',
      BULK_LEASE_MS: '4000',
      BULK_CLAIM_EVERY_MS: '700',
      ALERTS_PER_MINUTE: '30',
      ALERT_RULES_CACHE_MS: '0',
      ALERT_OVERDUE_CHECK_MS: '1000',
      ALERT_DELIVERY_ATTEMPTS: '3',
      ALERT_DELIVERY_BACKOFF_MS: '500',
      BACKFILL_MAX_OCCURRENCES: '90',
      BACKFILL_EXECUTIONS_PER_SECOND: '7',
      WORKER_IO_CONCURRENCY: '8',
      WORKER_CPU_CONCURRENCY: '3',
      WORKER_TENANT_SHARE_PERCENT: '40',
      QUEUE_LOCK_MS: '45000',
      RECONCILE_EVERY_MS: '5000',
      RECONCILE_GRACE_MS: '0',
      WORKER_DRAIN_MS: '2500',
      WORKER_WEDGED_MS: '4000',
      WORKER_CLAIM_AFTER_MS: '0',
      HANDLERS_MODULE: './handlers.mjs',
      DEFAULT_MAX_JOBS: '0',
      DEFAULT_MAX_CONCURRENT_EXECUTIONS: '7',
      DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '9',
      DEFAULT_MAX_WAITING_EXECUTIONS: '50',
      DEFAULT_EXECUTION_RETENTION_DAYS: '90',
      PURGE_EVERY_MS: '60000',
      NODE_ENV: 'production',
      LOG_LEVEL: 'error',
      METRICS_PORT: '9100',
      METRICS_TENANT_LABEL: 'true',
      DEFAULT_MAX_SOCKETS_PER_CREDENTIAL: '3',
      DEFAULT_MAX_SOCKETS: '4',
      DEFAULT_MAX_SUBSCRIPTIONS_PER_SOCKET: '5',
      DEFAULT_MAX_SUBSCRIPTIONS: '6',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel-collector.example:4318',
      OTEL_SERVICE_NAME: 'kairos-eu',
    });
    expect(config).toEqual({
      mongoUrl: 'mongodb+srv://user:pw@cluster0.example.net/jobs',
      redisUrl: 'rediss://cache.example.net:6380/2',
      redisCluster: null,
      queueShards: 1,
      port: 8080,
      host: '0.0.0.0',
      roles: ['worker', 'api'],
      jwt: { secret: undefined, publicKey: PEM, issuer: 'https://issuer.example', audience: 'kairos', maxTtlSeconds: 86_400 },
      allowPrivateTargets: true,
      scheduleSearchesPerMinute: 1200,
      scheduleSearchesPerSecondPerProcess: 250,
      subscriptionEventsPerSecond: 50,
      tenantRequests: { inFlight: 16, queued: 0 },
      tenantScansInFlight: 2,
      bulk: { maxExecutions: 500, executionsPerSecond: 50, operationsPerProcess: 3, leaseMs: 4000, claimEveryMs: 700 },
      alerts: { perMinute: 30, rulesCacheMs: 0, overdueCheckMs: 1000, deliveryAttempts: 3, deliveryBackoffMs: 500 },
      backfill: { maxOccurrences: 90, executionsPerSecond: 7 },
      rateLimitedAnswerDelayMs: 0,
      workerIoConcurrency: 8,
      workerCpuConcurrency: 3,
      workerTenantSharePercent: 40,
      queueLockMs: 45_000,
      reconcileEveryMs: 5000,
      reconcileGraceMs: 0,
      workerDrainMs: 2500,
      workerWedgedMs: 4000,
      workerClaimAfterMs: 0,
      handlersModule: './handlers.mjs',
      defaultQuota: {
        maxJobs: 0,
        maxConcurrentExecutions: 7,
        maxExecutionsPerMinute: 9,
        maxWaitingExecutions: 50,
        executionRetentionDays: 90,
      },
      purgeEveryMs: 60_000,
      redisPrefix: 'kairos',
      lookAheadMs: 30_000,
      leaseTtlMs: 5_000,
      mode: 'production',
      logLevel: 'error',
      metricsPort: 9100,
      metricsTenantLabel: true,
      defaultConnectionQuota: { maxSocketsPerCredential: 3, maxSockets: 4, maxSubscriptionsPerSocket: 5, maxSubscriptions: 6 },
      tracing: { otlpEndpoint: 'https://otel-collector.example:4318', serviceName: 'kairos-eu' },
    });
  });

  it('accepts 1/0 and false for ALLOW_PRIVATE_TARGETS', () => {
    expect(loadConfig({ JWT_SECRET: SECRET, ALLOW_PRIVATE_TARGETS: '1' }).allowPrivateTargets).toBe(true);
    expect(loadConfig({ JWT_SECRET: SECRET, ALLOW_PRIVATE_TARGETS: '0' }).allowPrivateTargets).toBe(false);
    expect(loadConfig({ JWT_SECRET: SECRET, ALLOW_PRIVATE_TARGETS: 'false' }).allowPrivateTargets).toBe(false);
  });

  it("reads REDIS_CLUSTER_NODES as host:port or redis URLs, the first one's credentials and TLS for all, and spreads queues over 6 shards", () => {
    const config = loadConfig({ JWT_SECRET: SECRET, REDIS_CLUSTER_NODES: 'rediss://app:p%40ss@10.0.0.1:7001, 10.0.0.2:7002,redis-3' });
    expect(config.redisCluster).toEqual({
      nodes: [
        { host: '10.0.0.1', port: 7001 },
        { host: '10.0.0.2', port: 7002 },
        { host: 'redis-3', port: 6379 },
      ],
      username: 'app',
      password: 'p@ss',
      tls: true,
    });
    expect(config.queueShards).toBe(6);
    expect(loadConfig({ JWT_SECRET: SECRET, REDIS_CLUSTER_NODES: '127.0.0.1:7001', QUEUE_SHARDS: '12' }).queueShards).toBe(12);
    expect(loadConfig({ JWT_SECRET: SECRET, REDIS_CLUSTER_NODES: '127.0.0.1:7001' }).redisCluster).toEqual({
      nodes: [{ host: '127.0.0.1', port: 7001 }],
      tls: false,
    });
  });

  it('accepts the PORT bounds 0 and 65535', () => {
    expect(loadConfig({ JWT_SECRET: SECRET, PORT: '0' }).port).toBe(0);
    expect(loadConfig({ JWT_SECRET: SECRET, PORT: '65535' }).port).toBe(65535);
  });

  it('accepts a JWT_SECRET of exactly 16 characters', () => {
    expect(loadConfig({ JWT_SECRET: '0123456789abcdef' }).jwt.secret).toBe('0123456789abcdef');
  });
});

describe('loadConfig rejects invalid values with a ConfigError naming the variable', () => {
  it.each([
    ['ROLES', { ROLES: 'api,admin' }],
    ['ROLES', { ROLES: 'API' }],
    ['ROLES', { ROLES: 'api;worker' }],
    ['ROLES', { ROLES: ',' }],
    ['PORT', { PORT: '0x1F90' }],
    ['PORT', { PORT: '1e3' }],
    ['PORT', { PORT: '65536' }],
    ['PORT', { PORT: '-1' }],
    ['PORT', { PORT: '80.5' }],
    ['PORT', { PORT: 'http' }],
    ['HOST', { HOST: 'http://0.0.0.0' }],
    ['HOST', { HOST: '0.0.0.0:4000' }],
    ['HOST', { HOST: 'a host' }],
    ['MONGO_URL', { MONGO_URL: 'not a url' }],
    ['MONGO_URL', { MONGO_URL: '127.0.0.1:27017' }],
    ['MONGO_URL', { MONGO_URL: 'http://127.0.0.1:27017/kairos' }],
    ['REDIS_URL', { REDIS_URL: 'http://127.0.0.1:6379' }],
    ['REDIS_URL', { REDIS_URL: 'mongodb://127.0.0.1:6379' }],
    ['REDIS_URL', { REDIS_URL: '::nope::' }],
    ['ALLOW_PRIVATE_TARGETS', { ALLOW_PRIVATE_TARGETS: 'maybe' }],
    // Below 600 a burst (10 s worth) could not hold one preview of 100.
    ['SCHEDULE_SEARCHES_PER_MINUTE', { SCHEDULE_SEARCHES_PER_MINUTE: '599' }],
    ['SCHEDULE_SEARCHES_PER_SECOND_PER_PROCESS', { SCHEDULE_SEARCHES_PER_SECOND_PER_PROCESS: '99' }],
    ['SUBSCRIPTION_EVENTS_PER_SECOND', { SUBSCRIPTION_EVENTS_PER_SECOND: '0' }],
    ['RATE_LIMITED_ANSWER_DELAY_MS', { RATE_LIMITED_ANSWER_DELAY_MS: '-1' }],
    ['API_TENANT_REQUESTS_IN_FLIGHT', { API_TENANT_REQUESTS_IN_FLIGHT: '0' }],
    ['API_TENANT_REQUESTS_QUEUED', { API_TENANT_REQUESTS_QUEUED: '-1' }],
    ['API_TENANT_SCANS_IN_FLIGHT', { API_TENANT_SCANS_IN_FLIGHT: '0' }],
    ['ALLOW_PRIVATE_TARGETS', { ALLOW_PRIVATE_TARGETS: 'yes' }],
    ['WORKER_IO_CONCURRENCY', { WORKER_IO_CONCURRENCY: '0' }],
    ['WORKER_IO_CONCURRENCY', { WORKER_IO_CONCURRENCY: 'many' }],
    ['WORKER_CPU_CONCURRENCY', { WORKER_CPU_CONCURRENCY: '0' }],
    ['WORKER_TENANT_SHARE_PERCENT', { WORKER_TENANT_SHARE_PERCENT: '0' }],
    ['WORKER_TENANT_SHARE_PERCENT', { WORKER_TENANT_SHARE_PERCENT: '101' }],
    ['QUEUE_LOCK_MS', { QUEUE_LOCK_MS: '999' }],
    ['ALERTS_PER_MINUTE', { ALERTS_PER_MINUTE: '0' }],
    ['ALERT_OVERDUE_CHECK_MS', { ALERT_OVERDUE_CHECK_MS: '99' }],
    ['ALERT_DELIVERY_ATTEMPTS', { ALERT_DELIVERY_ATTEMPTS: '21' }],
    ['DEFAULT_MAX_JOBS', { DEFAULT_MAX_JOBS: '-1' }],
    ['DEFAULT_MAX_CONCURRENT_EXECUTIONS', { DEFAULT_MAX_CONCURRENT_EXECUTIONS: '0' }],
    ['DEFAULT_MAX_EXECUTIONS_PER_MINUTE', { DEFAULT_MAX_EXECUTIONS_PER_MINUTE: '1.5' }],
    ['DEFAULT_MAX_WAITING_EXECUTIONS', { DEFAULT_MAX_WAITING_EXECUTIONS: '0' }],
    ['DEFAULT_EXECUTION_RETENTION_DAYS', { DEFAULT_EXECUTION_RETENTION_DAYS: '0' }],
    ['BACKFILL_MAX_OCCURRENCES', { BACKFILL_MAX_OCCURRENCES: '0' }],
    ['BACKFILL_MAX_OCCURRENCES', { BACKFILL_MAX_OCCURRENCES: '10001' }],
    ['BACKFILL_EXECUTIONS_PER_SECOND', { BACKFILL_EXECUTIONS_PER_SECOND: '0' }],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', { OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://127.0.0.1:4317' }],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', { OTEL_EXPORTER_OTLP_ENDPOINT: '127.0.0.1:4318' }],
  ])('%s: %j', (variable, overrides) => {
    const error = configError({ JWT_SECRET: SECRET, ...overrides });
    expect(error.message).toContain(variable);
  });

  it('says which roles are allowed and which entry is wrong', () => {
    const error = configError({ JWT_SECRET: SECRET, ROLES: 'api,admin' });
    expect(error.message).toContain('"admin"');
    expect(error.message).toMatch(/api, scheduler, worker/);
  });

  it('gives the PORT range', () => {
    expect(configError({ JWT_SECRET: SECRET, PORT: '70000' }).message).toBe('PORT must be an integer between 0 and 65535, got "70000"');
  });

  it('gives the allowed schemes of REDIS_URL', () => {
    expect(configError({ JWT_SECRET: SECRET, REDIS_URL: 'http://127.0.0.1:6379' }).message).toBe(
      'REDIS_URL must start with redis: or rediss:',
    );
  });

  it('does not echo a MONGO_URL it cannot parse (it may hold a password)', () => {
    const error = configError({ JWT_SECRET: SECRET, MONGO_URL: 'mongodb://user:hunter2@[bad' });
    expect(error.message).toContain('MONGO_URL');
    expect(error.message).not.toContain('hunter2');
  });

  it('requires JWT_SECRET or JWT_PUBLIC_KEY', () => {
    for (const env of [{}, { JWT_SECRET: '', JWT_PUBLIC_KEY: '' }]) {
      const error = configError(env);
      expect(error.message).toContain('JWT_SECRET');
      expect(error.message).toContain('JWT_PUBLIC_KEY');
    }
  });

  it('refuses a REDIS_CLUSTER_NODES entry of another scheme, an empty list and QUEUE_SHARDS out of 1..256, without echoing a password', () => {
    expect(configError({ JWT_SECRET: SECRET, REDIS_CLUSTER_NODES: 'http://10.0.0.1:7001' }).message).toMatch(/REDIS_CLUSTER_NODES/);
    expect(configError({ JWT_SECRET: SECRET, REDIS_CLUSTER_NODES: ' , ' }).message).toMatch(
      /REDIS_CLUSTER_NODES must name at least one node/,
    );
    const bad = configError({ JWT_SECRET: SECRET, REDIS_CLUSTER_NODES: 'redis://u:hunter2@10.0.0.1:99999' });
    expect(bad.message).toMatch(/REDIS_CLUSTER_NODES/);
    expect(bad.message).not.toContain('hunter2');
    expect(configError({ JWT_SECRET: SECRET, QUEUE_SHARDS: '0' }).message).toMatch(/QUEUE_SHARDS/);
    expect(configError({ JWT_SECRET: SECRET, QUEUE_SHARDS: '257' }).message).toMatch(/QUEUE_SHARDS/);
  });

  it('refuses JWT_SECRET and JWT_PUBLIC_KEY together (which algorithm would be meant is ambiguous)', () => {
    const error = configError({ JWT_SECRET: SECRET, JWT_PUBLIC_KEY: PEM });
    expect(error.message).toContain('JWT_SECRET');
    expect(error.message).toContain('JWT_PUBLIC_KEY');
    expect(error.message).not.toContain(SECRET);
  });

  it.each([
    ['not a PEM', 'not a key'],
    ['a truncated PEM', '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n'],
    ['an Ed25519 key', generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString()],
    ['a P-384 key', generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ type: 'spki', format: 'pem' }).toString()],
  ])('rejects a JWT_PUBLIC_KEY that is %s', (_label, key) => {
    expect(configError({ JWT_PUBLIC_KEY: key }).message).toContain('JWT_PUBLIC_KEY');
  });

  it('accepts a JWT_PUBLIC_KEY written on one line with \\n for its line breaks', () => {
    expect(loadConfig({ JWT_PUBLIC_KEY: PEM.replace(/\n/g, '\\n') }).jwt.publicKey).toBe(PEM);
  });

  it('rejects a JWT_SECRET shorter than 16 characters without echoing it', () => {
    const error = configError({ JWT_SECRET: 'short-secret-15' });
    expect('short-secret-15'.length).toBe(15);
    expect(error.message).toContain('JWT_SECRET');
    expect(error.message).toContain('16');
    expect(error.message).not.toContain('short-secret-15');
  });
});
