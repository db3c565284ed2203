import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { Redis } from 'ioredis';
import { loadConfig, type KairosConfig, type Role } from '../../src/config.js';
import { startKairos, type Kairos, type KairosOptions } from '../../src/kairos.js';
import { createLogger } from '../../src/logger.js';
import { signDevToken } from '../../src/auth/verifyToken.js';
import { dropRedisPrefix } from '../../tools/servers/dropRedisPrefix.js';
import { MONGO_URL, REDIS_URL, TEST_JWT_SECRET } from './env.js';

/** A unique name per test run and file: its own database and Redis prefix, so tests never share state. */
export function uniqueName(label: string): string {
  return `kt_${label}_${randomBytes(4).toString('hex')}`;
}

export function testConfig(overrides: Record<string, string> = {}): KairosConfig {
  return loadConfig({
    MONGO_URL,
    REDIS_URL,
    JWT_SECRET: TEST_JWT_SECRET,
    PORT: '0',
    ALLOW_PRIVATE_TARGETS: 'true',
    KAIROS_MODE: 'development',
    // Test Kairos instances run side by side: each serves its metrics on a free port.
    METRICS_PORT: '0',
    ...overrides,
  });
}

export function tokenFor(tenantId: string, role: 'admin' | 'member' | 'viewer' = 'admin', expiresInSeconds = 3600): string {
  return signDevToken(TEST_JWT_SECRET, { tenantId, role, expiresInSeconds });
}

/** A Kairos started in this process for one test file, with its own database and Redis prefix. */
export interface TestKairos {
  kairos: Kairos;
  url: string;
  dbName: string;
  prefix: string;
  /** Stops Kairos, then drops its database and deletes its Redis keys. */
  stop(): Promise<void>;
}

export async function startTestKairos(
  label: string,
  options: {
    roles?: Role[];
    env?: Record<string, string>;
    /** Join another test Kairos (same database and Redis prefix) as more processes of one deployment; stop() then leaves the state to it. */
    joining?: TestKairos;
  } & Partial<Omit<KairosOptions, 'config'>> = {},
): Promise<TestKairos> {
  const dbName = options.joining?.dbName ?? uniqueName(label);
  const prefix = options.joining?.prefix ?? dbName;
  const config = testConfig({ ROLES: (options.roles ?? ['api', 'scheduler', 'worker']).join(','), REDIS_PREFIX: prefix, ...options.env });
  const kairos = await startKairos({
    logger: createLogger({ test: label }, process.env.KAIROS_TEST_LOGS ? 'info' : 'warn'),
    dbName,
    // Agenda keeps a timer of max(processEvery, lockLifetime)/2 after each run: short ones let jest exit.
    ...options,
    scheduler: { sweepEveryMs: 200, agendaProcessEveryMs: 1000, agendaLockLifetimeMs: 1000, ...options.scheduler },
    worker: { drainTimeoutMs: 2000, ...options.worker },
    config,
  });
  return {
    kairos,
    url: kairos.url ?? '',
    dbName,
    prefix,
    stop: async () => {
      await kairos.stop();
      if (!options.joining) await dropTestState(dbName, prefix);
    },
  };
}

/** Drops a test's database and its Redis keys. */
export async function dropTestState(dbName: string, prefix: string): Promise<void> {
  const mongo = new MongoClient(MONGO_URL);
  const redis = new Redis(REDIS_URL);
  try {
    await mongo.db(dbName).dropDatabase();
    await dropRedisPrefix(redis, prefix);
  } finally {
    await mongo.close();
    await redis.quit();
  }
}
