/** How the api processes run bulk retries and cancels (executions/bulkRunner.ts); docs/operating.md lists them. */
export interface BulkSettings {
  /** BULK_MAX_EXECUTIONS: the most executions one bulk operation may match; a filter matching more is refused. Default 10 000. */
  maxExecutions: number;
  /** BULK_EXECUTIONS_PER_SECOND: the pace of one operation, in executions a second (in batches of a quarter second's worth). Default 200. */
  executionsPerSecond: number;
  /** BULK_OPERATIONS_PER_PROCESS: operations one api process runs at once; the others wait for a turn. Default 2. */
  operationsPerProcess: number;
  /** BULK_LEASE_MS: how long a running operation's Redis lease lasts unrenewed: after a crash, another process resumes it this much later. Default 15 000. */
  leaseMs: number;
  /** BULK_CLAIM_EVERY_MS: how often each api process looks for RUNNING operations nobody holds (and once at start). Default 5 000. */
  claimEveryMs: number;
}
