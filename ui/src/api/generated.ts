/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** KAIROS: Kairos' JSON body; SLACK: a Slack-compatible incoming-webhook body ({ text }). Both are signed like deliveries. */
export type AlertChannelFormat =
  | 'KAIROS'
  | 'SLACK';

/** PENDING: on its way or retrying; DELIVERED: the channel answered 2xx; FAILED: every attempt failed; RATE_LIMITED: past the tenant's alert rate, recorded but not sent. */
export type AlertDeliveryStatus =
  | 'DELIVERED'
  | 'FAILED'
  | 'PENDING'
  | 'RATE_LIMITED';

/** CONSECUTIVE_FAILURES: after `threshold` failed executions in a row (then once more when the job succeeds again: RECOVERED); SKIPPED: an occurrence skipped (misfire, budget, overlap); OVERDUE: an occurrence not started `threshold` seconds after it was due. */
export type AlertRuleKind =
  | 'CONSECUTIVE_FAILURES'
  | 'OVERDUE'
  | 'SKIPPED';

/** The change of state an alert announces. */
export type AlertState =
  | 'FAILING'
  | 'OVERDUE'
  | 'RECOVERED'
  | 'SKIPPED';

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

export type CreateAlertChannelInput = {
  /** Default KAIROS. */
  format?: AlertChannelFormat | null | undefined;
  /** Up to 100 characters. */
  name: string;
  /** An http(s) URL, up to 2048 characters. */
  url: string;
};

export type CreateAlertRuleInput = {
  channelId: string;
  /** One job; omitted or null: every job of the tenant. */
  jobId?: string | null | undefined;
  kind: AlertRuleKind;
  /** Required for CONSECUTIVE_FAILURES (1 to 1000 failed executions in a row) and OVERDUE (1 to 604800 seconds past due); none for SKIPPED. */
  threshold?: number | null | undefined;
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

/** A label of a job, or one a filter asks for. key: 1 to 63 characters, letters, digits, '.', '_', '/' or '-', starting with a letter or digit; value: at most 200 characters (may be empty). */
export type LabelInput = {
  key: string;
  value: string;
};

export type Role =
  | 'ADMIN'
  | 'MEMBER'
  | 'VIEWER';

export type ScheduleKind =
  | 'CRON'
  | 'INTERVAL'
  | 'ONCE';

export type ScheduleFieldsFragment = { kind: ScheduleKind, cron: string | null, timezone: string, intervalSeconds: number | null, runAt: string | null, startAt: string | null, endAt: string | null, jitterSeconds: number };

export type PageInfoFieldsFragment = { hasNextPage: boolean, hasPreviousPage: boolean, startCursor: string | null, endCursor: string | null };

export type JobRowFieldsFragment = { id: string, name: string, status: JobStatus, nextRunAt: string | null, lastRunAt: string | null, labels: Array<{ key: string, value: string }>, schedule: { kind: ScheduleKind, cron: string | null, timezone: string, intervalSeconds: number | null, runAt: string | null, startAt: string | null, endAt: string | null, jitterSeconds: number }, lastExecution: { status: ExecutionStatus } | null, executions: { edges: Array<{ node: { status: ExecutionStatus } }> } };

export type ExecutionSummaryFieldsFragment = { id: string, status: ExecutionStatus, trigger: ExecutionTrigger, scheduledFor: string, startedAt: string | null, finishedAt: string | null, durationMs: number | null, startLagMs: number | null, attempt: number, maxAttempts: number, error: string | null, jobId: string, job: { id: string, name: string } | null };

export type JobsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  last?: number | null | undefined;
  before?: string | null | undefined;
  filter?: JobFilter | null | undefined;
}>;


export type JobsQuery = { jobs: { totalCount: number, pageInfo: { hasNextPage: boolean, hasPreviousPage: boolean, startCursor: string | null, endCursor: string | null }, edges: Array<{ node: { id: string, name: string, status: JobStatus, nextRunAt: string | null, lastRunAt: string | null, labels: Array<{ key: string, value: string }>, schedule: { kind: ScheduleKind, cron: string | null, timezone: string, intervalSeconds: number | null, runAt: string | null, startAt: string | null, endAt: string | null, jitterSeconds: number }, lastExecution: { status: ExecutionStatus } | null, executions: { edges: Array<{ node: { status: ExecutionStatus } }> } } }> } };

export type ExecutionsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  last?: number | null | undefined;
  before?: string | null | undefined;
  filter?: ExecutionFilter | null | undefined;
}>;


export type ExecutionsQuery = { executions: { pageInfo: { hasNextPage: boolean, hasPreviousPage: boolean, startCursor: string | null, endCursor: string | null }, edges: Array<{ node: { id: string, status: ExecutionStatus, trigger: ExecutionTrigger, scheduledFor: string, startedAt: string | null, finishedAt: string | null, durationMs: number | null, startLagMs: number | null, attempt: number, maxAttempts: number, error: string | null, jobId: string, job: { id: string, name: string } | null } }> } };

export type JobExclusionsQueryVariables = Exact<{
  id: string;
}>;


export type JobExclusionsQuery = { job: { id: string, exclusions: Array<{ name: string | null, timezone: string | null, from: string | null, to: string | null, cron: string | null, durationSeconds: number | null, calendar: string | null }> } | null };

export type AlertSettingsQueryVariables = Exact<{
  admin: boolean;
}>;


export type AlertSettingsQuery = { alertChannels?: Array<{ id: string, name: string, url: string, format: AlertChannelFormat, createdAt: string }>, alertRules: Array<{ id: string, channelId: string, jobId: string | null, kind: AlertRuleKind, threshold: number, createdAt: string }> };

export type AlertsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  last?: number | null | undefined;
  before?: string | null | undefined;
  jobId?: string | null | undefined;
}>;


export type AlertsQuery = { alerts: { edges: Array<{ node: { id: string, jobId: string, executionId: string | null, kind: AlertRuleKind, state: AlertState, reason: string, raisedAt: string, delivery: { status: AlertDeliveryStatus, attempts: number, statusCode: number | null, error: string | null, deliveredAt: string | null } } }>, pageInfo: { hasNextPage: boolean, hasPreviousPage: boolean, startCursor: string | null, endCursor: string | null } } };

export type CreateAlertChannelMutationVariables = Exact<{
  input: CreateAlertChannelInput;
}>;


export type CreateAlertChannelMutation = { createAlertChannel: { id: string } };

export type DeleteAlertChannelMutationVariables = Exact<{
  id: string;
}>;


export type DeleteAlertChannelMutation = { deleteAlertChannel: { id: string } };

export type CreateAlertRuleMutationVariables = Exact<{
  input: CreateAlertRuleInput;
}>;


export type CreateAlertRuleMutation = { createAlertRule: { id: string } };

export type DeleteAlertRuleMutationVariables = Exact<{
  id: string;
}>;


export type DeleteAlertRuleMutation = { deleteAlertRule: { id: string } };

export type JobChangesQueryVariables = Exact<{
  id: string;
  first?: number | null | undefined;
  after?: string | null | undefined;
  last?: number | null | undefined;
  before?: string | null | undefined;
}>;


export type JobChangesQuery = { job: { id: string, changes: { pageInfo: { hasNextPage: boolean, hasPreviousPage: boolean, startCursor: string | null, endCursor: string | null }, edges: Array<{ node: { id: string, at: string, action: ChangeAction, details: unknown, actor: { subject: string, apiKeyId: string | null, role: Role }, target: { type: ChangeTargetType, id: string }, fields: Array<{ field: string, before: unknown, after: unknown, redacted: boolean }> } }> } } | null };

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
export const JobRowFieldsFragmentDoc = new TypedDocumentString(`
    fragment JobRowFields on Job {
  id
  name
  labels {
    key
    value
  }
  status
  schedule {
    ...ScheduleFields
  }
  nextRunAt
  lastRunAt
  lastExecution {
    status
  }
  executions(first: 20, filter: {phase: HISTORY}) {
    edges {
      node {
        status
      }
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
}`, {"fragmentName":"JobRowFields"}) as unknown as TypedDocumentString<JobRowFieldsFragment, unknown>;
export const ExecutionSummaryFieldsFragmentDoc = new TypedDocumentString(`
    fragment ExecutionSummaryFields on Execution {
  id
  status
  trigger
  scheduledFor
  startedAt
  finishedAt
  durationMs
  startLagMs
  attempt
  maxAttempts
  error
  jobId
  job {
    id
    name
  }
}
    `, {"fragmentName":"ExecutionSummaryFields"}) as unknown as TypedDocumentString<ExecutionSummaryFieldsFragment, unknown>;
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
    pageInfo {
      ...PageInfoFields
    }
    edges {
      node {
        ...JobRowFields
      }
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
fragment PageInfoFields on PageInfo {
  hasNextPage
  hasPreviousPage
  startCursor
  endCursor
}
fragment JobRowFields on Job {
  id
  name
  labels {
    key
    value
  }
  status
  schedule {
    ...ScheduleFields
  }
  nextRunAt
  lastRunAt
  lastExecution {
    status
  }
  executions(first: 20, filter: {phase: HISTORY}) {
    edges {
      node {
        status
      }
    }
  }
}`) as unknown as TypedDocumentString<JobsQuery, JobsQueryVariables>;
export const ExecutionsDocument = new TypedDocumentString(`
    query Executions($first: Int, $after: String, $last: Int, $before: String, $filter: ExecutionFilter) {
  executions(
    first: $first
    after: $after
    last: $last
    before: $before
    filter: $filter
  ) {
    pageInfo {
      ...PageInfoFields
    }
    edges {
      node {
        ...ExecutionSummaryFields
      }
    }
  }
}
    fragment PageInfoFields on PageInfo {
  hasNextPage
  hasPreviousPage
  startCursor
  endCursor
}
fragment ExecutionSummaryFields on Execution {
  id
  status
  trigger
  scheduledFor
  startedAt
  finishedAt
  durationMs
  startLagMs
  attempt
  maxAttempts
  error
  jobId
  job {
    id
    name
  }
}`) as unknown as TypedDocumentString<ExecutionsQuery, ExecutionsQueryVariables>;
export const JobExclusionsDocument = new TypedDocumentString(`
    query JobExclusions($id: ID!) {
  job(id: $id) {
    id
    exclusions {
      name
      timezone
      from
      to
      cron
      durationSeconds
      calendar
    }
  }
}
    `) as unknown as TypedDocumentString<JobExclusionsQuery, JobExclusionsQueryVariables>;
export const AlertSettingsDocument = new TypedDocumentString(`
    query AlertSettings($admin: Boolean!) {
  alertChannels @include(if: $admin) {
    id
    name
    url
    format
    createdAt
  }
  alertRules {
    id
    channelId
    jobId
    kind
    threshold
    createdAt
  }
}
    `) as unknown as TypedDocumentString<AlertSettingsQuery, AlertSettingsQueryVariables>;
export const AlertsDocument = new TypedDocumentString(`
    query Alerts($first: Int, $after: String, $last: Int, $before: String, $jobId: ID) {
  alerts(
    first: $first
    after: $after
    last: $last
    before: $before
    jobId: $jobId
  ) {
    edges {
      node {
        id
        jobId
        executionId
        kind
        state
        reason
        raisedAt
        delivery {
          status
          attempts
          statusCode
          error
          deliveredAt
        }
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
}`) as unknown as TypedDocumentString<AlertsQuery, AlertsQueryVariables>;
export const CreateAlertChannelDocument = new TypedDocumentString(`
    mutation CreateAlertChannel($input: CreateAlertChannelInput!) {
  createAlertChannel(input: $input) {
    id
  }
}
    `) as unknown as TypedDocumentString<CreateAlertChannelMutation, CreateAlertChannelMutationVariables>;
export const DeleteAlertChannelDocument = new TypedDocumentString(`
    mutation DeleteAlertChannel($id: ID!) {
  deleteAlertChannel(id: $id) {
    id
  }
}
    `) as unknown as TypedDocumentString<DeleteAlertChannelMutation, DeleteAlertChannelMutationVariables>;
export const CreateAlertRuleDocument = new TypedDocumentString(`
    mutation CreateAlertRule($input: CreateAlertRuleInput!) {
  createAlertRule(input: $input) {
    id
  }
}
    `) as unknown as TypedDocumentString<CreateAlertRuleMutation, CreateAlertRuleMutationVariables>;
export const DeleteAlertRuleDocument = new TypedDocumentString(`
    mutation DeleteAlertRule($id: ID!) {
  deleteAlertRule(id: $id) {
    id
  }
}
    `) as unknown as TypedDocumentString<DeleteAlertRuleMutation, DeleteAlertRuleMutationVariables>;
export const JobChangesDocument = new TypedDocumentString(`
    query JobChanges($id: ID!, $first: Int, $after: String, $last: Int, $before: String) {
  job(id: $id) {
    id
    changes(first: $first, after: $after, last: $last, before: $before) {
      pageInfo {
        ...PageInfoFields
      }
      edges {
        node {
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
          fields {
            field
            before
            after
            redacted
          }
          details
        }
      }
    }
  }
}
    fragment PageInfoFields on PageInfo {
  hasNextPage
  hasPreviousPage
  startCursor
  endCursor
}`) as unknown as TypedDocumentString<JobChangesQuery, JobChangesQueryVariables>;