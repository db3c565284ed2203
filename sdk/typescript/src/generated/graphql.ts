/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type AttemptOutcome =
  | 'CANCELLED'
  /** The worker running it disappeared; the attempt was taken over after the visibility timeout. */
  | 'CRASHED'
  | 'FAILED'
  | 'SUCCEEDED'
  | 'TIMED_OUT';

export type BulkOperationKind =
  /** cancelExecutions: each waiting or running execution of the set cancelled. */
  | 'CANCEL'
  /** retryExecutions: each FAILED or CANCELLED execution of the set queued again. */
  | 'RETRY';

export type BulkOperationStatus =
  /** The operation could not go on (see reason); done + failed say how far it got. */
  | 'FAILED'
  /** Items are being handled (or will be, after a restart: another api process resumes it). */
  | 'RUNNING'
  /** Every item was handled: done + failed = total (failed ones are in errors). */
  | 'SUCCEEDED';

/** The mutation that made a change (one value per mutation that records one). */
export type ChangeAction =
  | 'BACKFILL_JOB'
  | 'CANCEL_EXECUTION'
  /** cancelExecutions: the bulk operation started (its filter and count), not each execution. */
  | 'CANCEL_EXECUTIONS'
  | 'CREATE_ALERT_CHANNEL'
  | 'CREATE_ALERT_RULE'
  | 'CREATE_API_KEY'
  | 'CREATE_CALENDAR'
  | 'CREATE_JOB'
  | 'DELETE_ALERT_CHANNEL'
  | 'DELETE_ALERT_RULE'
  | 'DELETE_CALENDAR'
  | 'DELETE_JOB'
  | 'PAUSE_JOB'
  | 'RESUME_JOB'
  | 'RETRY_EXECUTION'
  /** retryExecutions: the bulk operation started (its filter and count), not each execution. */
  | 'RETRY_EXECUTIONS'
  | 'REVOKE_API_KEY'
  | 'REVOKE_PREVIOUS_WEBHOOK_SECRET'
  | 'ROTATE_WEBHOOK_SECRET'
  | 'TRIGGER_JOB'
  | 'UPDATE_CALENDAR'
  | 'UPDATE_JOB';

export type ChangeFilter = {
  /** One job's changes, also after the job was deleted. */
  jobId?: string | null | undefined;
};

/** The kind of object a change was made to. */
export type ChangeTargetType =
  | 'ALERT_CHANNEL'
  | 'ALERT_RULE'
  | 'API_KEY'
  | 'BULK_OPERATION'
  /** A named calendar of exclusion windows; the id is its name. */
  | 'CALENDAR'
  | 'EXECUTION'
  | 'JOB'
  /** The tenant's own record (its webhook signing secret); the id is the tenant id. */
  | 'TENANT';

export type CreateJobInput = {
  description?: string | null | undefined;
  /** When the job does not run: its occurrences inside any of these are recorded SKIPPED naming the exclusion, and nextRunAt and previewSchedule skip them. Replaced whole by an update (an empty list or null removes them), which reschedules the job as a schedule change does: its waiting executions the new exclusions cover are cancelled. */
  exclusions?: Array<ExclusionInput> | null | undefined;
  /** Your own id for the job, unique among this tenant's jobs (1 to 200 characters). One another job holds is CONFLICT, naming that job in the message and extensions.jobId. An update's null removes it. */
  externalId?: string | null | undefined;
  flowControl?: FlowControlInput | null | undefined;
  /** Creating again with the same key returns the job created first, unchanged. */
  idempotencyKey?: string | null | undefined;
  /** At most 32, each key once. An update replaces the whole set; null or an empty list removes them. */
  labels?: Array<LabelInput> | null | undefined;
  misfirePolicy?: MisfirePolicy | null | undefined;
  name: string;
  overlapPolicy?: OverlapPolicy | null | undefined;
  /** Create the job PAUSED. Default false. */
  paused?: boolean | null | undefined;
  payload?: unknown;
  retryPolicy?: RetryPolicyInput | null | undefined;
  schedule: ScheduleInput;
  target: JobTargetInput;
  timeoutSeconds?: number | null | undefined;
  /** With externalId: when a job of this tenant has that externalId, update it with the fields given here (as updateJob: omitted fields keep their value; paused and idempotencyKey are ignored) instead of refusing with CONFLICT; otherwise create the job. Default false. */
  upsert?: boolean | null | undefined;
  /** Default IO_BOUND. */
  workload?: Workload | null | undefined;
};

/** A stretch of time in which the job does not run: its occurrences there are recorded SKIPPED with a reason naming the exclusion. Give exactly one of: from and to (local dates, both included, midnight to midnight); cron and durationSeconds (a window opening at each occurrence of cron, under the same DST rules as schedules, until the local clock has moved on by durationSeconds); or calendar (a named calendar of the tenant, see createCalendar; jobs only). At most 20 per job, 200 windows per calendar. */
export type ExclusionInput = {
  /** Name of one of the tenant's calendars: its windows, kept up to date when it changes. */
  calendar?: string | null | undefined;
  /** When each window opens, e.g. "0 0 * * 6" (Saturday 00:00). */
  cron?: string | null | undefined;
  /** How long each window lasts, in seconds of local clock time (1 to 31622400): 172800 from Saturday 00:00 is the whole weekend, DST or not. */
  durationSeconds?: number | null | undefined;
  /** First excluded local date, YYYY-MM-DD. */
  from?: string | null | undefined;
  /** Named in the SKIPPED reason (at most 100 characters); default a description of the window. Not for calendar. */
  name?: string | null | undefined;
  /** IANA zone of the dates or cron; default the job schedule's zone (UTC in a calendar). */
  timezone?: string | null | undefined;
  /** Last excluded local date, YYYY-MM-DD (included; at most 3660 days after from). */
  to?: string | null | undefined;
};

/** Which executions to list; every given condition must hold. Without phase and statuses, upcoming occurrences come first. */
export type ExecutionFilter = {
  /** Inclusive. Executions that have not finished have no finishedAt and match neither finishedAfter nor finishedBefore. */
  finishedAfter?: string | null | undefined;
  /** Exclusive. */
  finishedBefore?: string | null | undefined;
  /** Executions of the job with this external id. */
  jobExternalId?: string | null | undefined;
  jobId?: string | null | undefined;
  /** Executions of the jobs that carry every one of these labels now (a label changed later applies to the job's past executions too; a deleted job's match none). At most 1000 jobs may match: narrow the filter otherwise (BAD_USER_INPUT). */
  labels?: Array<LabelInput> | null | undefined;
  /** HISTORY: started or finished; UPCOMING: not started yet. With statuses, only the statuses in both (possibly none). */
  phase?: ExecutionPhase | null | undefined;
  /** Inclusive. */
  scheduledAfter?: string | null | undefined;
  /** Exclusive. */
  scheduledBefore?: string | null | undefined;
  statuses?: Array<ExecutionStatus> | null | undefined;
};

export type ExecutionPhase =
  /** Started or finished: every status but SCHEDULED and QUEUED (RUNNING, RETRYING, SUCCEEDED, FAILED, CANCELLED, SKIPPED). */
  | 'HISTORY'
  /** Not started yet: SCHEDULED and QUEUED. */
  | 'UPCOMING';

export type ExecutionStatus =
  | 'CANCELLED'
  /** All attempts failed. */
  | 'FAILED'
  /** Handed to the worker queue. */
  | 'QUEUED'
  /** An attempt failed; the next one waits for its backoff (see nextAttemptAt). */
  | 'RETRYING'
  | 'RUNNING'
  /** Created ahead of its time by the scheduler. */
  | 'SCHEDULED'
  /** Not run, because of the job's overlap policy, or of its misfire policy (SKIP, RUN_ONCE) for an occurrence missed while no scheduler ran (see reason). */
  | 'SKIPPED'
  | 'SUCCEEDED';

export type ExecutionTrigger =
  /** backfillJob: a past occurrence created on request; scheduledFor is its nominal instant, so it is late by design: its startLagMs is null and executionStats leaves it out of the start-lag percentiles. */
  | 'BACKFILL'
  /** A misfire catch-up after scheduler downtime. */
  | 'CATCH_UP'
  /** triggerJob. */
  | 'MANUAL'
  | 'SCHEDULE';

/** Limits on the attempts of every job of this tenant that shares the key, across all workers. Give maxConcurrent, maxPerMinute or both. An execution waiting for its key stays QUEUED, holding none of the tenant's running slots, and says why in Execution.waitingFor. */
export type FlowControlInput = {
  /** Jobs of this tenant with the same key share its limits (never across tenants). Default: the target URL's origin (scheme, host and port), or `handler:<name>`, following the target when it changes. At most 200 characters; a tenant's jobs may use at most 100 keys. */
  key?: string | null | undefined;
  /** Attempts with this key running at once, at most. 1 to 1000. */
  maxConcurrent?: number | null | undefined;
  /** Attempts with this key started in any 60 s, at most. 1 to 60000. */
  maxPerMinute?: number | null | undefined;
};

export type HttpHeaderInput = {
  name: string;
  value: string;
};

export type HttpMethod =
  | 'DELETE'
  | 'GET'
  | 'PATCH'
  | 'POST'
  | 'PUT';

export type HttpTargetInput = {
  headers?: Array<HttpHeaderInput> | null | undefined;
  /** Default POST. */
  method?: HttpMethod | null | undefined;
  /** http or https. Unless the server runs with ALLOW_PRIVATE_TARGETS=true, a host that is a private, loopback, link-local or reserved IP address is refused here, and a host name that resolves to one fails its attempt when called (not retried). */
  url: string;
};

export type JobFilter = {
  /** The job with this external id (at most one). */
  externalId?: string | null | undefined;
  /** Jobs carrying every one of these labels (key and value equal). */
  labels?: Array<LabelInput> | null | undefined;
  /** Case-insensitive prefix of the job name. */
  namePrefix?: string | null | undefined;
  statuses?: Array<JobStatus> | null | undefined;
};

export type JobStatus =
  | 'ACTIVE'
  /** A one-off that has run, or a schedule past its endAt. */
  | 'COMPLETED'
  | 'PAUSED';

/** Exactly one of http, handler. */
export type JobTargetInput = {
  handler?: string | null | undefined;
  http?: HttpTargetInput | null | undefined;
};

/** A label of a job, or one a filter asks for. key: 1 to 63 characters, letters, digits, '.', '_', '/' or '-', starting with a letter or digit; value: at most 200 characters (may be empty). */
export type LabelInput = {
  key: string;
  value: string;
};

/** What happens to occurrences missed while the scheduler was down. */
export type MisfirePolicy =
  /** Run every missed occurrence (at most 100 per job). */
  | 'RUN_ALL'
  /** Run one catch-up execution for all missed occurrences, then resume the schedule. */
  | 'RUN_ONCE'
  /** Run none; resume from the next future occurrence. */
  | 'SKIP';

/** What happens when an occurrence is due while an earlier execution of the same job is still running. */
export type OverlapPolicy =
  /** Run both. */
  | 'ALLOW'
  /** Hold at most one occurrence until the running one finishes; further ones are SKIPPED. */
  | 'BUFFER_ONE'
  /** Cancel the running execution, then run the new one. */
  | 'CANCEL_PREVIOUS'
  /** Record the new occurrence as SKIPPED. */
  | 'SKIP';

export type RetryPolicyInput = {
  backoffMultiplier?: number | null | undefined;
  initialBackoffSeconds?: number | null | undefined;
  maxAttempts?: number | null | undefined;
  maxBackoffSeconds?: number | null | undefined;
  /** HTTP statuses (100 to 599, at most 50) that fail the execution at once instead of being retried; [] retries every status. Omitted or null: keeps the current list, or on create the default rule (every 4xx but 408, 425 and 429). Redirects (3xx) are never retried whatever the list says. */
  nonRetryableStatuses?: Array<number> | null | undefined;
};

export type Role =
  | 'ADMIN'
  | 'MEMBER'
  | 'VIEWER';

/** Exactly one of cron, intervalSeconds, runAt. */
export type ScheduleInput = {
  cron?: string | null | undefined;
  endAt?: string | null | undefined;
  intervalSeconds?: number | null | undefined;
  jitterSeconds?: number | null | undefined;
  runAt?: string | null | undefined;
  startAt?: string | null | undefined;
  timezone?: string | null | undefined;
};

export type ScheduleKind =
  | 'CRON'
  | 'INTERVAL'
  | 'ONCE';

/** Omitted fields keep their value. Changing the schedule recomputes nextRunAt and cancels the old schedule's executions that have not started yet, SCHEDULED or QUEUED, except occurrences the new schedule also has (triggerJob's executions are kept). */
export type UpdateJobInput = {
  description?: string | null | undefined;
  /** When the job does not run: its occurrences inside any of these are recorded SKIPPED naming the exclusion, and nextRunAt and previewSchedule skip them. Replaced whole by an update (an empty list or null removes them), which reschedules the job as a schedule change does: its waiting executions the new exclusions cover are cancelled. */
  exclusions?: Array<ExclusionInput> | null | undefined;
  /** Your own id for the job, unique among this tenant's jobs (1 to 200 characters). One another job holds is CONFLICT, naming that job in the message and extensions.jobId. An update's null removes it. */
  externalId?: string | null | undefined;
  /** Replaces the whole flow control (omitted limits are none); null removes it. */
  flowControl?: FlowControlInput | null | undefined;
  id: string;
  /** At most 32, each key once. An update replaces the whole set; null or an empty list removes them. */
  labels?: Array<LabelInput> | null | undefined;
  misfirePolicy?: MisfirePolicy | null | undefined;
  name?: string | null | undefined;
  overlapPolicy?: OverlapPolicy | null | undefined;
  payload?: unknown;
  retryPolicy?: RetryPolicyInput | null | undefined;
  schedule?: ScheduleInput | null | undefined;
  /** Replaces the whole target, not merged field by field: give its method and headers too, or they fall back to POST and none. Validated as in createJob; an invalid target is refused (BAD_USER_INPUT) and nothing is changed. */
  target?: JobTargetInput | null | undefined;
  timeoutSeconds?: number | null | undefined;
  workload?: Workload | null | undefined;
};

/** Job type metadata that decides how a worker runs it: IO_BOUND jobs share a worker at high concurrency, CPU_BOUND jobs run one per core, isolated. */
export type Workload =
  | 'CPU_BOUND'
  | 'IO_BOUND';

export type PageInfoFieldsFragment = { hasNextPage: boolean, hasPreviousPage: boolean, startCursor: string | null, endCursor: string | null };

export type ScheduleFieldsFragment = { kind: ScheduleKind, cron: string | null, timezone: string, intervalSeconds: number | null, runAt: string | null, startAt: string | null, endAt: string | null, jitterSeconds: number };

export type JobFieldsFragment = { id: string, name: string, description: string | null, payload: unknown, workload: Workload, timeoutSeconds: number, overlapPolicy: OverlapPolicy, misfirePolicy: MisfirePolicy, externalId: string | null, status: JobStatus, nextRunAt: string | null, lastRunAt: string | null, createdAt: string, updatedAt: string, schedule: { kind: ScheduleKind, cron: string | null, timezone: string, intervalSeconds: number | null, runAt: string | null, startAt: string | null, endAt: string | null, jitterSeconds: number }, target:
    | { __typename: 'HandlerTarget', handler: string }
    | { __typename: 'HttpTarget', url: string, method: HttpMethod, headers: Array<{ name: string, value: string }> }
  , retryPolicy: { maxAttempts: number, initialBackoffSeconds: number, maxBackoffSeconds: number, backoffMultiplier: number, nonRetryableStatuses: Array<number> | null }, flowControl: { key: string, keyFromTarget: boolean, maxConcurrent: number | null, maxPerMinute: number | null } | null, labels: Array<{ key: string, value: string }> };

export type AttemptFieldsFragment = { number: number, startedAt: string, finishedAt: string | null, outcome: AttemptOutcome | null, error: string | null, httpStatus: number | null, retryAfterSeconds: number | null, workerId: string | null };

export type ExecutionFieldsFragment = { id: string, jobId: string, status: ExecutionStatus, trigger: ExecutionTrigger, scheduledFor: string, queuedAt: string | null, startedAt: string | null, finishedAt: string | null, durationMs: number | null, startLagMs: number | null, attempt: number, maxAttempts: number, nextAttemptAt: string | null, error: string | null, reason: string | null, waitingFor: string | null, skippedCount: number | null, skippedUntil: string | null, result: unknown, createdAt: string, updatedAt: string, attempts: Array<{ number: number, startedAt: string, finishedAt: string | null, outcome: AttemptOutcome | null, error: string | null, httpStatus: number | null, retryAfterSeconds: number | null, workerId: string | null }>, job: { id: string, name: string } | null };

export type ApiKeyFieldsFragment = { id: string, name: string, role: Role, prefix: string, createdAt: string, lastUsedAt: string | null };

export type BulkOperationFieldsFragment = { id: string, operationId: string, kind: BulkOperationKind, status: BulkOperationStatus, reason: string | null, total: number, done: number, failed: number, createdAt: string, finishedAt: string | null, errors: Array<{ executionId: string, message: string }> };

export type ChangeFieldsFragment = { id: string, at: string, action: ChangeAction, jobId: string | null, details: unknown, actor: { subject: string, apiKeyId: string | null, role: Role }, target: { type: ChangeTargetType, id: string }, fields: Array<{ field: string, before: unknown, after: unknown, redacted: boolean }> };

export type CreateJobMutationVariables = Exact<{
  input: CreateJobInput;
}>;


export type CreateJobMutation = { createJob: { job: { id: string, name: string, description: string | null, payload: unknown, workload: Workload, timeoutSeconds: number, overlapPolicy: OverlapPolicy, misfirePolicy: MisfirePolicy, externalId: string | null, status: JobStatus, nextRunAt: string | null, lastRunAt: string | null, createdAt: string, updatedAt: string, schedule: { kind: ScheduleKind, cron: string | null, timezone: string, intervalSeconds: number | null, runAt: string | null, startAt: string | null, endAt: string | null, jitterSeconds: number }, target:
        | { __typename: 'HandlerTarget', handler: string }
        | { __typename: 'HttpTarget', url: string, method: HttpMethod, headers: Array<{ name: string, value: string }> }
      , retryPolicy: { maxAttempts: number, initialBackoffSeconds: number, maxBackoffSeconds: number, backoffMultiplier: number, nonRetryableStatuses: Array<number> | null }, flowControl: { key: string, keyFromTarget: boolean, maxConcurrent: number | null, maxPerMinute: number | null } | null, labels: Array<{ key: string, value: string }> } } };

export type UpdateJobMutationVariables = Exact<{
  input: UpdateJobInput;
}>;


export type UpdateJobMutation = { updateJob: { job: { id: string, name: string, description: string | null, payload: unknown, workload: Workload, timeoutSeconds: number, overlapPolicy: OverlapPolicy, misfirePolicy: MisfirePolicy, externalId: string | null, status: JobStatus, nextRunAt: string | null, lastRunAt: string | null, createdAt: string, updatedAt: string, schedule: { kind: ScheduleKind, cron: string | null, timezone: string, intervalSeconds: number | null, runAt: string | null, startAt: string | null, endAt: string | null, jitterSeconds: number }, target:
        | { __typename: 'HandlerTarget', handler: string }
        | { __typename: 'HttpTarget', url: string, method: HttpMethod, headers: Array<{ name: string, value: string }> }
      , retryPolicy: { maxAttempts: number, initialBackoffSeconds: number, maxBackoffSeconds: number, backoffMultiplier: number, nonRetryableStatuses: Array<number> | null }, flowControl: { key: string, keyFromTarget: boolean, maxConcurrent: number | null, maxPerMinute: number | null } | null, labels: Array<{ key: string, value: string }> } } };

export type PauseJobMutationVariables = Exact<{
  id: string;
}>;


export type PauseJobMutation = { pauseJob: { job: { id: string, name: string, description: string | null, payload: unknown, workload: Workload, timeoutSeconds: number, overlapPolicy: OverlapPolicy, misfirePolicy: MisfirePolicy, externalId: string | null, status: JobStatus, nextRunAt: string | null, lastRunAt: string | null, createdAt: string, updatedAt: string, schedule: { kind: ScheduleKind, cron: string | null, timezone: string, intervalSeconds: number | null, runAt: string | null, startAt: string | null, endAt: string | null, jitterSeconds: number }, target:
        | { __typename: 'HandlerTarget', handler: string }
        | { __typename: 'HttpTarget', url: string, method: HttpMethod, headers: Array<{ name: string, value: string }> }
      , retryPolicy: { maxAttempts: number, initialBackoffSeconds: number, maxBackoffSeconds: number, backoffMultiplier: number, nonRetryableStatuses: Array<number> | null }, flowControl: { key: string, keyFromTarget: boolean, maxConcurrent: number | null, maxPerMinute: number | null } | null, labels: Array<{ key: string, value: string }> } } };

export type ResumeJobMutationVariables = Exact<{
  id: string;
}>;


export type ResumeJobMutation = { resumeJob: { job: { id: string, name: string, description: string | null, payload: unknown, workload: Workload, timeoutSeconds: number, overlapPolicy: OverlapPolicy, misfirePolicy: MisfirePolicy, externalId: string | null, status: JobStatus, nextRunAt: string | null, lastRunAt: string | null, createdAt: string, updatedAt: string, schedule: { kind: ScheduleKind, cron: string | null, timezone: string, intervalSeconds: number | null, runAt: string | null, startAt: string | null, endAt: string | null, jitterSeconds: number }, target:
        | { __typename: 'HandlerTarget', handler: string }
        | { __typename: 'HttpTarget', url: string, method: HttpMethod, headers: Array<{ name: string, value: string }> }
      , retryPolicy: { maxAttempts: number, initialBackoffSeconds: number, maxBackoffSeconds: number, backoffMultiplier: number, nonRetryableStatuses: Array<number> | null }, flowControl: { key: string, keyFromTarget: boolean, maxConcurrent: number | null, maxPerMinute: number | null } | null, labels: Array<{ key: string, value: string }> } } };

export type DeleteJobMutationVariables = Exact<{
  id: string;
}>;


export type DeleteJobMutation = { deleteJob: { deletedJobId: string } };

export type TriggerJobMutationVariables = Exact<{
  id: string;
  payload?: unknown;
}>;


export type TriggerJobMutation = { triggerJob: { execution: { id: string, jobId: string, status: ExecutionStatus, trigger: ExecutionTrigger, scheduledFor: string, queuedAt: string | null, startedAt: string | null, finishedAt: string | null, durationMs: number | null, startLagMs: number | null, attempt: number, maxAttempts: number, nextAttemptAt: string | null, error: string | null, reason: string | null, waitingFor: string | null, skippedCount: number | null, skippedUntil: string | null, result: unknown, createdAt: string, updatedAt: string, attempts: Array<{ number: number, startedAt: string, finishedAt: string | null, outcome: AttemptOutcome | null, error: string | null, httpStatus: number | null, retryAfterSeconds: number | null, workerId: string | null }>, job: { id: string, name: string } | null } } };

export type BackfillJobMutationVariables = Exact<{
  id: string;
  from: string;
  to: string;
  dryRun?: boolean | null | undefined;
}>;


export type BackfillJobMutation = { backfillJob: { dryRun: boolean, excluded: number, created: number, existing: number | null, lastStartAt: string | null, instants: Array<{ at: string, local: string }> } };

export type CancelExecutionMutationVariables = Exact<{
  id: string;
}>;


export type CancelExecutionMutation = { cancelExecution: { execution: { id: string, jobId: string, status: ExecutionStatus, trigger: ExecutionTrigger, scheduledFor: string, queuedAt: string | null, startedAt: string | null, finishedAt: string | null, durationMs: number | null, startLagMs: number | null, attempt: number, maxAttempts: number, nextAttemptAt: string | null, error: string | null, reason: string | null, waitingFor: string | null, skippedCount: number | null, skippedUntil: string | null, result: unknown, createdAt: string, updatedAt: string, attempts: Array<{ number: number, startedAt: string, finishedAt: string | null, outcome: AttemptOutcome | null, error: string | null, httpStatus: number | null, retryAfterSeconds: number | null, workerId: string | null }>, job: { id: string, name: string } | null } } };

export type RetryExecutionMutationVariables = Exact<{
  id: string;
}>;


export type RetryExecutionMutation = { retryExecution: { execution: { id: string, jobId: string, status: ExecutionStatus, trigger: ExecutionTrigger, scheduledFor: string, queuedAt: string | null, startedAt: string | null, finishedAt: string | null, durationMs: number | null, startLagMs: number | null, attempt: number, maxAttempts: number, nextAttemptAt: string | null, error: string | null, reason: string | null, waitingFor: string | null, skippedCount: number | null, skippedUntil: string | null, result: unknown, createdAt: string, updatedAt: string, attempts: Array<{ number: number, startedAt: string, finishedAt: string | null, outcome: AttemptOutcome | null, error: string | null, httpStatus: number | null, retryAfterSeconds: number | null, workerId: string | null }>, job: { id: string, name: string } | null } } };

export type CreateApiKeyMutationVariables = Exact<{
  name: string;
  role: Role;
}>;


export type CreateApiKeyMutation = { createApiKey: { secret: string, apiKey: { id: string, name: string, role: Role, prefix: string, createdAt: string, lastUsedAt: string | null } } };

export type RevokeApiKeyMutationVariables = Exact<{
  id: string;
}>;


export type RevokeApiKeyMutation = { revokeApiKey: { id: string, name: string, role: Role, prefix: string, createdAt: string, lastUsedAt: string | null } };

export type RotateWebhookSecretMutationVariables = Exact<{
  gracePeriodSeconds?: number | null | undefined;
}>;


export type RotateWebhookSecretMutation = { rotateWebhookSecret: { secret: string, previousSecretExpiresAt: string | null } };

export type RevokePreviousWebhookSecretMutationVariables = Exact<{ [key: string]: never; }>;


export type RevokePreviousWebhookSecretMutation = { revokePreviousWebhookSecret: { previousSecretExpiresAt: string | null, rotatedAt: string | null } };

export type RetryExecutionsMutationVariables = Exact<{
  filter: ExecutionFilter;
  operationId?: string | null | undefined;
}>;


export type RetryExecutionsMutation = { retryExecutions: { id: string, operationId: string, kind: BulkOperationKind, status: BulkOperationStatus, reason: string | null, total: number, done: number, failed: number, createdAt: string, finishedAt: string | null, errors: Array<{ executionId: string, message: string }> } };

export type CancelExecutionsMutationVariables = Exact<{
  filter: ExecutionFilter;
  operationId?: string | null | undefined;
}>;


export type CancelExecutionsMutation = { cancelExecutions: { id: string, operationId: string, kind: BulkOperationKind, status: BulkOperationStatus, reason: string | null, total: number, done: number, failed: number, createdAt: string, finishedAt: string | null, errors: Array<{ executionId: string, message: string }> } };

export type ViewerQueryVariables = Exact<{ [key: string]: never; }>;


export type ViewerQuery = { viewer: { tenantId: string, subject: string, role: Role, quota: { maxJobs: number, jobCount: number, maxConcurrentExecutions: number, maxExecutionsPerMinute: number, maxWaitingExecutions: number, waitingExecutions: number | null } } };

export type JobQueryVariables = Exact<{
  id: string;
}>;


export type JobQuery = { job: { id: string, name: string, description: string | null, payload: unknown, workload: Workload, timeoutSeconds: number, overlapPolicy: OverlapPolicy, misfirePolicy: MisfirePolicy, externalId: string | null, status: JobStatus, nextRunAt: string | null, lastRunAt: string | null, createdAt: string, updatedAt: string, schedule: { kind: ScheduleKind, cron: string | null, timezone: string, intervalSeconds: number | null, runAt: string | null, startAt: string | null, endAt: string | null, jitterSeconds: number }, target:
      | { __typename: 'HandlerTarget', handler: string }
      | { __typename: 'HttpTarget', url: string, method: HttpMethod, headers: Array<{ name: string, value: string }> }
    , retryPolicy: { maxAttempts: number, initialBackoffSeconds: number, maxBackoffSeconds: number, backoffMultiplier: number, nonRetryableStatuses: Array<number> | null }, flowControl: { key: string, keyFromTarget: boolean, maxConcurrent: number | null, maxPerMinute: number | null } | null, labels: Array<{ key: string, value: string }> } | null };

export type JobsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  last?: number | null | undefined;
  before?: string | null | undefined;
  filter?: JobFilter | null | undefined;
}>;


export type JobsQuery = { jobs: { totalCount: number, edges: Array<{ cursor: string, node: { id: string, name: string, description: string | null, payload: unknown, workload: Workload, timeoutSeconds: number, overlapPolicy: OverlapPolicy, misfirePolicy: MisfirePolicy, externalId: string | null, status: JobStatus, nextRunAt: string | null, lastRunAt: string | null, createdAt: string, updatedAt: string, schedule: { kind: ScheduleKind, cron: string | null, timezone: string, intervalSeconds: number | null, runAt: string | null, startAt: string | null, endAt: string | null, jitterSeconds: number }, target:
          | { __typename: 'HandlerTarget', handler: string }
          | { __typename: 'HttpTarget', url: string, method: HttpMethod, headers: Array<{ name: string, value: string }> }
        , retryPolicy: { maxAttempts: number, initialBackoffSeconds: number, maxBackoffSeconds: number, backoffMultiplier: number, nonRetryableStatuses: Array<number> | null }, flowControl: { key: string, keyFromTarget: boolean, maxConcurrent: number | null, maxPerMinute: number | null } | null, labels: Array<{ key: string, value: string }> } }>, pageInfo: { hasNextPage: boolean, hasPreviousPage: boolean, startCursor: string | null, endCursor: string | null } } };

export type ExecutionQueryVariables = Exact<{
  id: string;
}>;


export type ExecutionQuery = { execution: { id: string, jobId: string, status: ExecutionStatus, trigger: ExecutionTrigger, scheduledFor: string, queuedAt: string | null, startedAt: string | null, finishedAt: string | null, durationMs: number | null, startLagMs: number | null, attempt: number, maxAttempts: number, nextAttemptAt: string | null, error: string | null, reason: string | null, waitingFor: string | null, skippedCount: number | null, skippedUntil: string | null, result: unknown, createdAt: string, updatedAt: string, attempts: Array<{ number: number, startedAt: string, finishedAt: string | null, outcome: AttemptOutcome | null, error: string | null, httpStatus: number | null, retryAfterSeconds: number | null, workerId: string | null }>, job: { id: string, name: string } | null } | null };

export type ExecutionsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  last?: number | null | undefined;
  before?: string | null | undefined;
  filter?: ExecutionFilter | null | undefined;
}>;


export type ExecutionsQuery = { executions: { edges: Array<{ cursor: string, node: { id: string, jobId: string, status: ExecutionStatus, trigger: ExecutionTrigger, scheduledFor: string, queuedAt: string | null, startedAt: string | null, finishedAt: string | null, durationMs: number | null, startLagMs: number | null, attempt: number, maxAttempts: number, nextAttemptAt: string | null, error: string | null, reason: string | null, waitingFor: string | null, skippedCount: number | null, skippedUntil: string | null, result: unknown, createdAt: string, updatedAt: string, attempts: Array<{ number: number, startedAt: string, finishedAt: string | null, outcome: AttemptOutcome | null, error: string | null, httpStatus: number | null, retryAfterSeconds: number | null, workerId: string | null }>, job: { id: string, name: string } | null } }>, pageInfo: { hasNextPage: boolean, hasPreviousPage: boolean, startCursor: string | null, endCursor: string | null } } };

export type ExecutionStatsQueryVariables = Exact<{
  since: string;
  until?: string | null | undefined;
  jobId?: string | null | undefined;
}>;


export type ExecutionStatsQuery = { executionStats: { total: number, startLagMsP50: number | null, startLagMsP99: number | null, byStatus: Array<{ status: ExecutionStatus, count: number }> } };

export type NodeQueryVariables = Exact<{
  id: string;
}>;


export type NodeQuery = { node:
    | { __typename: 'BulkOperation', id: string }
    | { __typename: 'Execution', id: string }
    | { __typename: 'Job', id: string }
   | null };

export type PreviewScheduleQueryVariables = Exact<{
  schedule: ScheduleInput;
  count?: number | null | undefined;
}>;


export type PreviewScheduleQuery = { previewSchedule: Array<{ at: string, local: string }> };

export type ApiKeysQueryVariables = Exact<{ [key: string]: never; }>;


export type ApiKeysQuery = { apiKeys: Array<{ id: string, name: string, role: Role, prefix: string, createdAt: string, lastUsedAt: string | null }> };

export type BulkOperationQueryVariables = Exact<{
  id: string;
}>;


export type BulkOperationQuery = { bulkOperation: { id: string, operationId: string, kind: BulkOperationKind, status: BulkOperationStatus, reason: string | null, total: number, done: number, failed: number, createdAt: string, finishedAt: string | null, errors: Array<{ executionId: string, message: string }> } | null };

export type ChangesQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  last?: number | null | undefined;
  before?: string | null | undefined;
  filter?: ChangeFilter | null | undefined;
}>;


export type ChangesQuery = { changes: { edges: Array<{ cursor: string, node: { id: string, at: string, action: ChangeAction, jobId: string | null, details: unknown, actor: { subject: string, apiKeyId: string | null, role: Role }, target: { type: ChangeTargetType, id: string }, fields: Array<{ field: string, before: unknown, after: unknown, redacted: boolean }> } }>, pageInfo: { hasNextPage: boolean, hasPreviousPage: boolean, startCursor: string | null, endCursor: string | null } } };

export type ExecutionUpdatedSubscriptionVariables = Exact<{
  jobId?: string | null | undefined;
  statuses?: Array<ExecutionStatus> | null | undefined;
}>;


export type ExecutionUpdatedSubscription = { executionUpdated: { previousStatus: ExecutionStatus | null, status: ExecutionStatus, occurredAt: string, execution: { id: string, jobId: string, status: ExecutionStatus, trigger: ExecutionTrigger, scheduledFor: string, queuedAt: string | null, startedAt: string | null, finishedAt: string | null, durationMs: number | null, startLagMs: number | null, attempt: number, maxAttempts: number, nextAttemptAt: string | null, error: string | null, reason: string | null, waitingFor: string | null, skippedCount: number | null, skippedUntil: string | null, result: unknown, createdAt: string, updatedAt: string, attempts: Array<{ number: number, startedAt: string, finishedAt: string | null, outcome: AttemptOutcome | null, error: string | null, httpStatus: number | null, retryAfterSeconds: number | null, workerId: string | null }>, job: { id: string, name: string } | null } } };

export type BulkOperationProgressSubscriptionVariables = Exact<{
  id: string;
}>;


export type BulkOperationProgressSubscription = { bulkOperationProgress: { id: string, operationId: string, kind: BulkOperationKind, status: BulkOperationStatus, reason: string | null, total: number, done: number, failed: number, createdAt: string, finishedAt: string | null, errors: Array<{ executionId: string, message: string }> } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const PageInfoFieldsFragmentDoc = new TypedDocumentString(`
    fragment PageInfoFields on PageInfo {
  hasNextPage
  hasPreviousPage
  startCursor
  endCursor
}
    `, {"fragmentName":"PageInfoFields"}) as unknown as TypedDocumentString<PageInfoFieldsFragment, unknown>;
export const ScheduleFieldsFragmentDoc = new TypedDocumentString(`
    fragment ScheduleFields on Schedule {
  kind
  cron
  timezone
  intervalSeconds
  runAt
  startAt
  endAt
  jitterSeconds
}
    `, {"fragmentName":"ScheduleFields"}) as unknown as TypedDocumentString<ScheduleFieldsFragment, unknown>;
export const JobFieldsFragmentDoc = new TypedDocumentString(`
    fragment JobFields on Job {
  id
  name
  description
  schedule {
    ...ScheduleFields
  }
  target {
    __typename
    ... on HttpTarget {
      url
      method
      headers {
        name
        value
      }
    }
    ... on HandlerTarget {
      handler
    }
  }
  payload
  workload
  timeoutSeconds
  retryPolicy {
    maxAttempts
    initialBackoffSeconds
    maxBackoffSeconds
    backoffMultiplier
    nonRetryableStatuses
  }
  overlapPolicy
  misfirePolicy
  flowControl {
    key
    keyFromTarget
    maxConcurrent
    maxPerMinute
  }
  labels {
    key
    value
  }
  externalId
  status
  nextRunAt
  lastRunAt
  createdAt
  updatedAt
}
    fragment ScheduleFields on Schedule {
  kind
  cron
  timezone
  intervalSeconds
  runAt
  startAt
  endAt
  jitterSeconds
}`, {"fragmentName":"JobFields"}) as unknown as TypedDocumentString<JobFieldsFragment, unknown>;
export const AttemptFieldsFragmentDoc = new TypedDocumentString(`
    fragment AttemptFields on ExecutionAttempt {
  number
  startedAt
  finishedAt
  outcome
  error
  httpStatus
  retryAfterSeconds
  workerId
}
    `, {"fragmentName":"AttemptFields"}) as unknown as TypedDocumentString<AttemptFieldsFragment, unknown>;
export const ExecutionFieldsFragmentDoc = new TypedDocumentString(`
    fragment ExecutionFields on Execution {
  id
  jobId
  status
  trigger
  scheduledFor
  queuedAt
  startedAt
  finishedAt
  durationMs
  startLagMs
  attempt
  maxAttempts
  nextAttemptAt
  attempts {
    ...AttemptFields
  }
  error
  reason
  waitingFor
  skippedCount
  skippedUntil
  result
  createdAt
  updatedAt
  job {
    id
    name
  }
}
    fragment AttemptFields on ExecutionAttempt {
  number
  startedAt
  finishedAt
  outcome
  error
  httpStatus
  retryAfterSeconds
  workerId
}`, {"fragmentName":"ExecutionFields"}) as unknown as TypedDocumentString<ExecutionFieldsFragment, unknown>;
export const ApiKeyFieldsFragmentDoc = new TypedDocumentString(`
    fragment ApiKeyFields on ApiKey {
  id
  name
  role
  prefix
  createdAt
  lastUsedAt
}
    `, {"fragmentName":"ApiKeyFields"}) as unknown as TypedDocumentString<ApiKeyFieldsFragment, unknown>;
export const BulkOperationFieldsFragmentDoc = new TypedDocumentString(`
    fragment BulkOperationFields on BulkOperation {
  id
  operationId
  kind
  status
  reason
  total
  done
  failed
  errors {
    executionId
    message
  }
  createdAt
  finishedAt
}
    `, {"fragmentName":"BulkOperationFields"}) as unknown as TypedDocumentString<BulkOperationFieldsFragment, unknown>;
export const ChangeFieldsFragmentDoc = new TypedDocumentString(`
    fragment ChangeFields on Change {
  id
  at
  action
  actor {
    subject
    apiKeyId
    role
  }
  target {
    type
    id
  }
  jobId
  fields {
    field
    before
    after
    redacted
  }
  details
}
    `, {"fragmentName":"ChangeFields"}) as unknown as TypedDocumentString<ChangeFieldsFragment, unknown>;
export const CreateJobDocument = new TypedDocumentString(`
    mutation CreateJob($input: CreateJobInput!) {
  createJob(input: $input) {
    job {
      ...JobFields
    }
  }
}
    fragment ScheduleFields on Schedule {
  kind
  cron
  timezone
  intervalSeconds
  runAt
  startAt
  endAt
  jitterSeconds
}
fragment JobFields on Job {
  id
  name
  description
  schedule {
    ...ScheduleFields
  }
  target {
    __typename
    ... on HttpTarget {
      url
      method
      headers {
        name
        value
      }
    }
    ... on HandlerTarget {
      handler
    }
  }
  payload
  workload
  timeoutSeconds
  retryPolicy {
    maxAttempts
    initialBackoffSeconds
    maxBackoffSeconds
    backoffMultiplier
    nonRetryableStatuses
  }
  overlapPolicy
  misfirePolicy
  flowControl {
    key
    keyFromTarget
    maxConcurrent
    maxPerMinute
  }
  labels {
    key
    value
  }
  externalId
  status
  nextRunAt
  lastRunAt
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<CreateJobMutation, CreateJobMutationVariables>;
export const UpdateJobDocument = new TypedDocumentString(`
    mutation UpdateJob($input: UpdateJobInput!) {
  updateJob(input: $input) {
    job {
      ...JobFields
    }
  }
}
    fragment ScheduleFields on Schedule {
  kind
  cron
  timezone
  intervalSeconds
  runAt
  startAt
  endAt
  jitterSeconds
}
fragment JobFields on Job {
  id
  name
  description
  schedule {
    ...ScheduleFields
  }
  target {
    __typename
    ... on HttpTarget {
      url
      method
      headers {
        name
        value
      }
    }
    ... on HandlerTarget {
      handler
    }
  }
  payload
  workload
  timeoutSeconds
  retryPolicy {
    maxAttempts
    initialBackoffSeconds
    maxBackoffSeconds
    backoffMultiplier
    nonRetryableStatuses
  }
  overlapPolicy
  misfirePolicy
  flowControl {
    key
    keyFromTarget
    maxConcurrent
    maxPerMinute
  }
  labels {
    key
    value
  }
  externalId
  status
  nextRunAt
  lastRunAt
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<UpdateJobMutation, UpdateJobMutationVariables>;
export const PauseJobDocument = new TypedDocumentString(`
    mutation PauseJob($id: ID!) {
  pauseJob(id: $id) {
    job {
      ...JobFields
    }
  }
}
    fragment ScheduleFields on Schedule {
  kind
  cron
  timezone
  intervalSeconds
  runAt
  startAt
  endAt
  jitterSeconds
}
fragment JobFields on Job {
  id
  name
  description
  schedule {
    ...ScheduleFields
  }
  target {
    __typename
    ... on HttpTarget {
      url
      method
      headers {
        name
        value
      }
    }
    ... on HandlerTarget {
      handler
    }
  }
  payload
  workload
  timeoutSeconds
  retryPolicy {
    maxAttempts
    initialBackoffSeconds
    maxBackoffSeconds
    backoffMultiplier
    nonRetryableStatuses
  }
  overlapPolicy
  misfirePolicy
  flowControl {
    key
    keyFromTarget
    maxConcurrent
    maxPerMinute
  }
  labels {
    key
    value
  }
  externalId
  status
  nextRunAt
  lastRunAt
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<PauseJobMutation, PauseJobMutationVariables>;
export const ResumeJobDocument = new TypedDocumentString(`
    mutation ResumeJob($id: ID!) {
  resumeJob(id: $id) {
    job {
      ...JobFields
    }
  }
}
    fragment ScheduleFields on Schedule {
  kind
  cron
  timezone
  intervalSeconds
  runAt
  startAt
  endAt
  jitterSeconds
}
fragment JobFields on Job {
  id
  name
  description
  schedule {
    ...ScheduleFields
  }
  target {
    __typename
    ... on HttpTarget {
      url
      method
      headers {
        name
        value
      }
    }
    ... on HandlerTarget {
      handler
    }
  }
  payload
  workload
  timeoutSeconds
  retryPolicy {
    maxAttempts
    initialBackoffSeconds
    maxBackoffSeconds
    backoffMultiplier
    nonRetryableStatuses
  }
  overlapPolicy
  misfirePolicy
  flowControl {
    key
    keyFromTarget
    maxConcurrent
    maxPerMinute
  }
  labels {
    key
    value
  }
  externalId
  status
  nextRunAt
  lastRunAt
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<ResumeJobMutation, ResumeJobMutationVariables>;
export const DeleteJobDocument = new TypedDocumentString(`
    mutation DeleteJob($id: ID!) {
  deleteJob(id: $id) {
    deletedJobId
  }
}
    `) as unknown as TypedDocumentString<DeleteJobMutation, DeleteJobMutationVariables>;
export const TriggerJobDocument = new TypedDocumentString(`
    mutation TriggerJob($id: ID!, $payload: JSON) {
  triggerJob(id: $id, payload: $payload) {
    execution {
      ...ExecutionFields
    }
  }
}
    fragment AttemptFields on ExecutionAttempt {
  number
  startedAt
  finishedAt
  outcome
  error
  httpStatus
  retryAfterSeconds
  workerId
}
fragment ExecutionFields on Execution {
  id
  jobId
  status
  trigger
  scheduledFor
  queuedAt
  startedAt
  finishedAt
  durationMs
  startLagMs
  attempt
  maxAttempts
  nextAttemptAt
  attempts {
    ...AttemptFields
  }
  error
  reason
  waitingFor
  skippedCount
  skippedUntil
  result
  createdAt
  updatedAt
  job {
    id
    name
  }
}`) as unknown as TypedDocumentString<TriggerJobMutation, TriggerJobMutationVariables>;
export const BackfillJobDocument = new TypedDocumentString(`
    mutation BackfillJob($id: ID!, $from: DateTime!, $to: DateTime!, $dryRun: Boolean) {
  backfillJob(id: $id, from: $from, to: $to, dryRun: $dryRun) {
    dryRun
    instants {
      at
      local
    }
    excluded
    created
    existing
    lastStartAt
  }
}
    `) as unknown as TypedDocumentString<BackfillJobMutation, BackfillJobMutationVariables>;
export const CancelExecutionDocument = new TypedDocumentString(`
    mutation CancelExecution($id: ID!) {
  cancelExecution(id: $id) {
    execution {
      ...ExecutionFields
    }
  }
}
    fragment AttemptFields on ExecutionAttempt {
  number
  startedAt
  finishedAt
  outcome
  error
  httpStatus
  retryAfterSeconds
  workerId
}
fragment ExecutionFields on Execution {
  id
  jobId
  status
  trigger
  scheduledFor
  queuedAt
  startedAt
  finishedAt
  durationMs
  startLagMs
  attempt
  maxAttempts
  nextAttemptAt
  attempts {
    ...AttemptFields
  }
  error
  reason
  waitingFor
  skippedCount
  skippedUntil
  result
  createdAt
  updatedAt
  job {
    id
    name
  }
}`) as unknown as TypedDocumentString<CancelExecutionMutation, CancelExecutionMutationVariables>;
export const RetryExecutionDocument = new TypedDocumentString(`
    mutation RetryExecution($id: ID!) {
  retryExecution(id: $id) {
    execution {
      ...ExecutionFields
    }
  }
}
    fragment AttemptFields on ExecutionAttempt {
  number
  startedAt
  finishedAt
  outcome
  error
  httpStatus
  retryAfterSeconds
  workerId
}
fragment ExecutionFields on Execution {
  id
  jobId
  status
  trigger
  scheduledFor
  queuedAt
  startedAt
  finishedAt
  durationMs
  startLagMs
  attempt
  maxAttempts
  nextAttemptAt
  attempts {
    ...AttemptFields
  }
  error
  reason
  waitingFor
  skippedCount
  skippedUntil
  result
  createdAt
  updatedAt
  job {
    id
    name
  }
}`) as unknown as TypedDocumentString<RetryExecutionMutation, RetryExecutionMutationVariables>;
export const CreateApiKeyDocument = new TypedDocumentString(`
    mutation CreateApiKey($name: String!, $role: Role!) {
  createApiKey(name: $name, role: $role) {
    secret
    apiKey {
      ...ApiKeyFields
    }
  }
}
    fragment ApiKeyFields on ApiKey {
  id
  name
  role
  prefix
  createdAt
  lastUsedAt
}`) as unknown as TypedDocumentString<CreateApiKeyMutation, CreateApiKeyMutationVariables>;
export const RevokeApiKeyDocument = new TypedDocumentString(`
    mutation RevokeApiKey($id: ID!) {
  revokeApiKey(id: $id) {
    ...ApiKeyFields
  }
}
    fragment ApiKeyFields on ApiKey {
  id
  name
  role
  prefix
  createdAt
  lastUsedAt
}`) as unknown as TypedDocumentString<RevokeApiKeyMutation, RevokeApiKeyMutationVariables>;
export const RotateWebhookSecretDocument = new TypedDocumentString(`
    mutation RotateWebhookSecret($gracePeriodSeconds: Int) {
  rotateWebhookSecret(gracePeriodSeconds: $gracePeriodSeconds) {
    secret
    previousSecretExpiresAt
  }
}
    `) as unknown as TypedDocumentString<RotateWebhookSecretMutation, RotateWebhookSecretMutationVariables>;
export const RevokePreviousWebhookSecretDocument = new TypedDocumentString(`
    mutation RevokePreviousWebhookSecret {
  revokePreviousWebhookSecret {
    previousSecretExpiresAt
    rotatedAt
  }
}
    `) as unknown as TypedDocumentString<RevokePreviousWebhookSecretMutation, RevokePreviousWebhookSecretMutationVariables>;
export const RetryExecutionsDocument = new TypedDocumentString(`
    mutation RetryExecutions($filter: ExecutionFilter!, $operationId: String) {
  retryExecutions(filter: $filter, operationId: $operationId) {
    ...BulkOperationFields
  }
}
    fragment BulkOperationFields on BulkOperation {
  id
  operationId
  kind
  status
  reason
  total
  done
  failed
  errors {
    executionId
    message
  }
  createdAt
  finishedAt
}`) as unknown as TypedDocumentString<RetryExecutionsMutation, RetryExecutionsMutationVariables>;
export const CancelExecutionsDocument = new TypedDocumentString(`
    mutation CancelExecutions($filter: ExecutionFilter!, $operationId: String) {
  cancelExecutions(filter: $filter, operationId: $operationId) {
    ...BulkOperationFields
  }
}
    fragment BulkOperationFields on BulkOperation {
  id
  operationId
  kind
  status
  reason
  total
  done
  failed
  errors {
    executionId
    message
  }
  createdAt
  finishedAt
}`) as unknown as TypedDocumentString<CancelExecutionsMutation, CancelExecutionsMutationVariables>;
export const ViewerDocument = new TypedDocumentString(`
    query Viewer {
  viewer {
    tenantId
    subject
    role
    quota {
      maxJobs
      jobCount
      maxConcurrentExecutions
      maxExecutionsPerMinute
      maxWaitingExecutions
      waitingExecutions
    }
  }
}
    `) as unknown as TypedDocumentString<ViewerQuery, ViewerQueryVariables>;
export const JobDocument = new TypedDocumentString(`
    query Job($id: ID!) {
  job(id: $id) {
    ...JobFields
  }
}
    fragment ScheduleFields on Schedule {
  kind
  cron
  timezone
  intervalSeconds
  runAt
  startAt
  endAt
  jitterSeconds
}
fragment JobFields on Job {
  id
  name
  description
  schedule {
    ...ScheduleFields
  }
  target {
    __typename
    ... on HttpTarget {
      url
      method
      headers {
        name
        value
      }
    }
    ... on HandlerTarget {
      handler
    }
  }
  payload
  workload
  timeoutSeconds
  retryPolicy {
    maxAttempts
    initialBackoffSeconds
    maxBackoffSeconds
    backoffMultiplier
    nonRetryableStatuses
  }
  overlapPolicy
  misfirePolicy
  flowControl {
    key
    keyFromTarget
    maxConcurrent
    maxPerMinute
  }
  labels {
    key
    value
  }
  externalId
  status
  nextRunAt
  lastRunAt
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<JobQuery, JobQueryVariables>;
export const JobsDocument = new TypedDocumentString(`
    query Jobs($first: Int, $after: String, $last: Int, $before: String, $filter: JobFilter) {
  jobs(
    first: $first
    after: $after
    last: $last
    before: $before
    filter: $filter
  ) {
    totalCount
    edges {
      cursor
      node {
        ...JobFields
      }
    }
    pageInfo {
      ...PageInfoFields
    }
  }
}
    fragment PageInfoFields on PageInfo {
  hasNextPage
  hasPreviousPage
  startCursor
  endCursor
}
fragment ScheduleFields on Schedule {
  kind
  cron
  timezone
  intervalSeconds
  runAt
  startAt
  endAt
  jitterSeconds
}
fragment JobFields on Job {
  id
  name
  description
  schedule {
    ...ScheduleFields
  }
  target {
    __typename
    ... on HttpTarget {
      url
      method
      headers {
        name
        value
      }
    }
    ... on HandlerTarget {
      handler
    }
  }
  payload
  workload
  timeoutSeconds
  retryPolicy {
    maxAttempts
    initialBackoffSeconds
    maxBackoffSeconds
    backoffMultiplier
    nonRetryableStatuses
  }
  overlapPolicy
  misfirePolicy
  flowControl {
    key
    keyFromTarget
    maxConcurrent
    maxPerMinute
  }
  labels {
    key
    value
  }
  externalId
  status
  nextRunAt
  lastRunAt
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<JobsQuery, JobsQueryVariables>;
export const ExecutionDocument = new TypedDocumentString(`
    query Execution($id: ID!) {
  execution(id: $id) {
    ...ExecutionFields
  }
}
    fragment AttemptFields on ExecutionAttempt {
  number
  startedAt
  finishedAt
  outcome
  error
  httpStatus
  retryAfterSeconds
  workerId
}
fragment ExecutionFields on Execution {
  id
  jobId
  status
  trigger
  scheduledFor
  queuedAt
  startedAt
  finishedAt
  durationMs
  startLagMs
  attempt
  maxAttempts
  nextAttemptAt
  attempts {
    ...AttemptFields
  }
  error
  reason
  waitingFor
  skippedCount
  skippedUntil
  result
  createdAt
  updatedAt
  job {
    id
    name
  }
}`) as unknown as TypedDocumentString<ExecutionQuery, ExecutionQueryVariables>;
export const ExecutionsDocument = new TypedDocumentString(`
    query Executions($first: Int, $after: String, $last: Int, $before: String, $filter: ExecutionFilter) {
  executions(
    first: $first
    after: $after
    last: $last
    before: $before
    filter: $filter
  ) {
    edges {
      cursor
      node {
        ...ExecutionFields
      }
    }
    pageInfo {
      ...PageInfoFields
    }
  }
}
    fragment PageInfoFields on PageInfo {
  hasNextPage
  hasPreviousPage
  startCursor
  endCursor
}
fragment AttemptFields on ExecutionAttempt {
  number
  startedAt
  finishedAt
  outcome
  error
  httpStatus
  retryAfterSeconds
  workerId
}
fragment ExecutionFields on Execution {
  id
  jobId
  status
  trigger
  scheduledFor
  queuedAt
  startedAt
  finishedAt
  durationMs
  startLagMs
  attempt
  maxAttempts
  nextAttemptAt
  attempts {
    ...AttemptFields
  }
  error
  reason
  waitingFor
  skippedCount
  skippedUntil
  result
  createdAt
  updatedAt
  job {
    id
    name
  }
}`) as unknown as TypedDocumentString<ExecutionsQuery, ExecutionsQueryVariables>;
export const ExecutionStatsDocument = new TypedDocumentString(`
    query ExecutionStats($since: DateTime!, $until: DateTime, $jobId: ID) {
  executionStats(since: $since, until: $until, jobId: $jobId) {
    total
    byStatus {
      status
      count
    }
    startLagMsP50
    startLagMsP99
  }
}
    `) as unknown as TypedDocumentString<ExecutionStatsQuery, ExecutionStatsQueryVariables>;
export const NodeDocument = new TypedDocumentString(`
    query Node($id: ID!) {
  node(id: $id) {
    __typename
    id
  }
}
    `) as unknown as TypedDocumentString<NodeQuery, NodeQueryVariables>;
export const PreviewScheduleDocument = new TypedDocumentString(`
    query PreviewSchedule($schedule: ScheduleInput!, $count: Int) {
  previewSchedule(schedule: $schedule, count: $count) {
    at
    local
  }
}
    `) as unknown as TypedDocumentString<PreviewScheduleQuery, PreviewScheduleQueryVariables>;
export const ApiKeysDocument = new TypedDocumentString(`
    query ApiKeys {
  apiKeys {
    ...ApiKeyFields
  }
}
    fragment ApiKeyFields on ApiKey {
  id
  name
  role
  prefix
  createdAt
  lastUsedAt
}`) as unknown as TypedDocumentString<ApiKeysQuery, ApiKeysQueryVariables>;
export const BulkOperationDocument = new TypedDocumentString(`
    query BulkOperation($id: ID!) {
  bulkOperation(id: $id) {
    ...BulkOperationFields
  }
}
    fragment BulkOperationFields on BulkOperation {
  id
  operationId
  kind
  status
  reason
  total
  done
  failed
  errors {
    executionId
    message
  }
  createdAt
  finishedAt
}`) as unknown as TypedDocumentString<BulkOperationQuery, BulkOperationQueryVariables>;
export const ChangesDocument = new TypedDocumentString(`
    query Changes($first: Int, $after: String, $last: Int, $before: String, $filter: ChangeFilter) {
  changes(
    first: $first
    after: $after
    last: $last
    before: $before
    filter: $filter
  ) {
    edges {
      cursor
      node {
        ...ChangeFields
      }
    }
    pageInfo {
      ...PageInfoFields
    }
  }
}
    fragment PageInfoFields on PageInfo {
  hasNextPage
  hasPreviousPage
  startCursor
  endCursor
}
fragment ChangeFields on Change {
  id
  at
  action
  actor {
    subject
    apiKeyId
    role
  }
  target {
    type
    id
  }
  jobId
  fields {
    field
    before
    after
    redacted
  }
  details
}`) as unknown as TypedDocumentString<ChangesQuery, ChangesQueryVariables>;
export const ExecutionUpdatedDocument = new TypedDocumentString(`
    subscription ExecutionUpdated($jobId: ID, $statuses: [ExecutionStatus!]) {
  executionUpdated(jobId: $jobId, statuses: $statuses) {
    previousStatus
    status
    occurredAt
    execution {
      ...ExecutionFields
    }
  }
}
    fragment AttemptFields on ExecutionAttempt {
  number
  startedAt
  finishedAt
  outcome
  error
  httpStatus
  retryAfterSeconds
  workerId
}
fragment ExecutionFields on Execution {
  id
  jobId
  status
  trigger
  scheduledFor
  queuedAt
  startedAt
  finishedAt
  durationMs
  startLagMs
  attempt
  maxAttempts
  nextAttemptAt
  attempts {
    ...AttemptFields
  }
  error
  reason
  waitingFor
  skippedCount
  skippedUntil
  result
  createdAt
  updatedAt
  job {
    id
    name
  }
}`) as unknown as TypedDocumentString<ExecutionUpdatedSubscription, ExecutionUpdatedSubscriptionVariables>;
export const BulkOperationProgressDocument = new TypedDocumentString(`
    subscription BulkOperationProgress($id: ID!) {
  bulkOperationProgress(id: $id) {
    ...BulkOperationFields
  }
}
    fragment BulkOperationFields on BulkOperation {
  id
  operationId
  kind
  status
  reason
  total
  done
  failed
  errors {
    executionId
    message
  }
  createdAt
  finishedAt
}`) as unknown as TypedDocumentString<BulkOperationProgressSubscription, BulkOperationProgressSubscriptionVariables>;