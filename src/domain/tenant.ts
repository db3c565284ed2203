/** The `tenants` collection's document; `_id` is the tenant id from the token. Created on first use. */
export interface TenantDoc {
  _id: string;
  maxJobs: number;
  maxConcurrentExecutions: number;
  maxExecutionsPerMinute: number;
  /**
   * Executions that may wait in the queue at once (QUEUED or RETRYING, due or not); past it
   * triggerJob and retryExecution are refused. Scheduled occurrences count but are never refused.
   */
  maxWaitingExecutions: number;
  /** Open subscription sockets one credential (a JWT subject or an API key) may hold on one api process. */
  maxSocketsPerCredential: number;
  /** Open subscription sockets the whole tenant may hold on one api process. */
  maxSockets: number;
  /** Operations (subscriptions mostly) one socket may run at once. */
  maxSubscriptionsPerSocket: number;
  /** Operations the tenant's sockets on one api process may run at once, all together. */
  maxSubscriptions: number;
  /** Finished executions older than this (by `finishedAt`) are purged by the leader. */
  executionRetentionDays: number;
  /** HMAC-SHA256 key for X-Kairos-Signature-V2 and the deprecated X-Kairos-Signature; returned to the tenant only when rotated. */
  webhookSecret: string;
  /** When the secret was last replaced by rotateWebhookSecret; absent until then. */
  webhookSecretRotatedAt?: Date;
  /**
   * The secret the last rotation replaced: deliveries are signed with it too, after the current one,
   * until `previousWebhookSecretExpiresAt`. Absent without a grace, and after revokePreviousWebhookSecret.
   */
  previousWebhookSecret?: string;
  /** When `previousWebhookSecret` stops signing; an expired pair stays until the next rotation or revoke. */
  previousWebhookSecretExpiresAt?: Date;
  createdAt: Date;
}
