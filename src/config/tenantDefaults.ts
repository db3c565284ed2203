/** A new tenant's quotas, until an admin changes them. */
export interface TenantDefaults {
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
}
