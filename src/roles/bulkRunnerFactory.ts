import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import type { Clock } from '../clock.js';
import type { BulkSettings } from '../config/bulkSettings.js';
import { cancelBatch } from '../executions/bulkCancel.js';
import { BulkLeases } from '../executions/bulkLeases.js';
import { retryBatch } from '../executions/bulkRetry.js';
import { BulkRunner } from '../executions/bulkRunner.js';
import type { Logger } from '../logger.js';
import type { RedisClient } from '../redis/redisClient.js';
import type { OperationServices } from '../resolvers/appServices.js';
import { BulkOperationRuns } from '../store/bulkOperationRuns.js';
import { ExecutionStore } from '../store/executionStore.js';
import { JobStore } from '../store/jobStore.js';

/** What the api role builds its bulk runner from. */
export interface BulkRunnerWiring {
  db: Db;
  /** The command connection: the runner's leases. */
  redis: RedisClient;
  redisPrefix: string;
  settings: BulkSettings;
  operations: Omit<OperationServices, 'bulk'>;
  clock: Clock;
  logger: Logger;
}

/**
 * The api role's bulk operation runner: each batch gets the stores of its operation's tenant (an
 * operation's items are all of its tenant), and the leases a holder id of this process. The caller
 * starts it once serving and registers its stop with the process's closers.
 */
export function createBulkRunner({ db, redis, redisPrefix, settings, operations, clock, logger }: BulkRunnerWiring): BulkRunner {
  const tenantStores = (tenantId: string) => ({ jobs: new JobStore(db, tenantId), executions: new ExecutionStore(db, tenantId) });
  return new BulkRunner({
    runs: new BulkOperationRuns(db),
    leases: new BulkLeases(redis, redisPrefix, randomUUID(), settings.leaseMs),
    settings,
    batches: {
      RETRY: (operation, items, now) => retryBatch({ ...operations, ...tenantStores(operation.tenantId) }, operation, items, now),
      CANCEL: (operation, items, now) => cancelBatch({ ...operations, ...tenantStores(operation.tenantId) }, items, now),
    },
    clock,
    logger,
  });
}
