export { KairosClient, type KairosClientOptions, type TypedDocument, type PageArgs, type Job, type Execution, type ExecutionAttempt, type ApiKey, type Viewer, type ExecutionStats, type ScheduledTime, type ExecutionEvent, type JobConnection, type ExecutionConnection, type BulkOperation, type BackfillResult, type Change, type ChangeConnection } from './client.js';
export { KairosError, type KairosErrorCode, type GraphQLErrorPayload } from './errors.js';
export { verifyWebhook, verifyWebhookV2, type VerifyWebhookOptions, type VerifyWebhookV2Input, type WebhookHeaders, type WebhookSecrets, type Hmac } from './webhook.js';
export { paginate, paginateBackward, type Connection } from './paginate.js';
export { backoffMs, type ReconnectOptions } from './watch.js';
export type { Credential, RateLimitRetry, RequestOptions } from './transport.js';
export type {
  CreateJobInput,
  UpdateJobInput,
  ScheduleInput,
  JobTargetInput,
  HttpTargetInput,
  HttpHeaderInput,
  RetryPolicyInput,
  ExecutionFilter,
  JobFilter,
  ExecutionStatus,
  ExecutionPhase,
  ExecutionTrigger,
  AttemptOutcome,
  JobStatus,
  ScheduleKind,
  HttpMethod,
  Workload,
  OverlapPolicy,
  MisfirePolicy,
  Role,
  BulkOperationKind,
  BulkOperationStatus,
} from './generated/graphql.js';
/** The generated typed documents, for `client.request(document, variables)`. */
export * as documents from './generated/graphql.js';
