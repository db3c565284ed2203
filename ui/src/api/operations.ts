/** The GraphQL documents the dashboard sends, and the shapes of their answers. */

export type Role = 'ADMIN' | 'MEMBER' | 'VIEWER';
export type JobStatus = 'ACTIVE' | 'PAUSED' | 'COMPLETED';
export type ExecutionStatus = 'SCHEDULED' | 'QUEUED' | 'RUNNING' | 'RETRYING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED' | 'SKIPPED';

export interface Viewer {
  tenantId: string;
  subject: string;
  role: Role;
  quota: { maxJobs: number; jobCount: number; maxConcurrentExecutions: number; maxExecutionsPerMinute: number };
}

export interface Schedule {
  kind: 'CRON' | 'INTERVAL' | 'ONCE';
  cron: string | null;
  timezone: string;
  intervalSeconds: number | null;
  runAt: string | null;
  startAt: string | null;
  endAt: string | null;
  jitterSeconds: number;
}

export type Target = { __typename: 'HttpTarget'; url: string; method: string; headers: { name: string; value: string }[] } | { __typename: 'HandlerTarget'; handler: string };

export interface ExecutionSummary {
  id: string;
  status: ExecutionStatus;
  trigger: string;
  scheduledFor: string;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  startLagMs: number | null;
  attempt: number;
  maxAttempts: number;
  error: string | null;
  job: { id: string; name: string } | null;
  jobId: string;
}

export interface JobRow {
  id: string;
  name: string;
  status: JobStatus;
  schedule: Schedule;
  nextRunAt: string | null;
  lastRunAt: string | null;
  /** The newest run that has started or finished. */
  lastExecution: { status: ExecutionStatus } | null;
  /** The newest runs that have started or finished (RECENT_EXECUTIONS of them), for the success rate. */
  executions: { edges: { node: { status: ExecutionStatus } }[] };
}

export interface Job extends JobRow {
  description: string | null;
  target: Target;
  payload: unknown;
  workload: string;
  timeoutSeconds: number;
  retryPolicy: { maxAttempts: number; initialBackoffSeconds: number; maxBackoffSeconds: number; backoffMultiplier: number };
  overlapPolicy: string;
  misfirePolicy: string;
  createdAt: string;
  updatedAt: string;
}

export interface Attempt {
  number: number;
  startedAt: string;
  finishedAt: string | null;
  outcome: string | null;
  error: string | null;
  httpStatus: number | null;
  workerId: string | null;
}

export interface Execution extends ExecutionSummary {
  queuedAt: string | null;
  nextAttemptAt: string | null;
  attempts: Attempt[];
  reason: string | null;
  result: unknown;
  createdAt: string;
  updatedAt: string;
}

export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

/** How many recent runs (started or finished) a job row's success rate is taken from. */
export const RECENT_EXECUTIONS = 20;

/** Started or finished (HISTORY), or not started yet (UPCOMING): the API's ExecutionPhase. */
export type ExecutionPhase = 'HISTORY' | 'UPCOMING';
export const HISTORY_STATUSES: ExecutionStatus[] = ['RUNNING', 'RETRYING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'SKIPPED'];
export const UPCOMING_STATUSES: ExecutionStatus[] = ['SCHEDULED', 'QUEUED'];

const SCHEDULE = 'schedule { kind cron timezone intervalSeconds runAt startAt endAt jitterSeconds }';
const EXECUTION_SUMMARY = 'id status trigger scheduledFor startedAt finishedAt durationMs startLagMs attempt maxAttempts error jobId job { id name }';
// Runs, not the first executions of all: those are the occurrences not started yet, for a frequent job all of them.
const JOB_ROW = `id name status ${SCHEDULE} nextRunAt lastRunAt lastExecution { status } executions(first: ${RECENT_EXECUTIONS}, filter: { phase: HISTORY }) { edges { node { status } } }`;
const JOB = `${JOB_ROW} description target { __typename ... on HttpTarget { url method headers { name value } } ... on HandlerTarget { handler } } payload workload timeoutSeconds retryPolicy { maxAttempts initialBackoffSeconds maxBackoffSeconds backoffMultiplier } overlapPolicy misfirePolicy createdAt updatedAt`;
const EXECUTION = `${EXECUTION_SUMMARY} queuedAt nextAttemptAt reason result createdAt updatedAt attempts { number startedAt finishedAt outcome error httpStatus workerId }`;
const PAGE_INFO = 'pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';

export const VIEWER = `query Viewer { viewer { tenantId subject role quota { maxJobs jobCount maxConcurrentExecutions maxExecutionsPerMinute } } }`;

export const JOBS = `query Jobs($first: Int, $after: String, $last: Int, $before: String, $filter: JobFilter) {
  jobs(first: $first, after: $after, last: $last, before: $before, filter: $filter) { totalCount ${PAGE_INFO} edges { node { ${JOB_ROW} } } }
}`;

export const JOB_PAGE = `query JobPage($id: ID!) { job(id: $id) { ${JOB} } }`;

export const EXECUTIONS = `query Executions($first: Int, $after: String, $last: Int, $before: String, $filter: ExecutionFilter) {
  executions(first: $first, after: $after, last: $last, before: $before, filter: $filter) { ${PAGE_INFO} edges { node { ${EXECUTION_SUMMARY} } } }
}`;

export const EXECUTION_PAGE = `query ExecutionPage($id: ID!) { execution(id: $id) { ${EXECUTION} } }`;

export const EXECUTION_UPDATED = `subscription ExecutionUpdated($jobId: ID) {
  executionUpdated(jobId: $jobId) { status previousStatus occurredAt execution { ${EXECUTION} } }
}`;

export const STATS = `query Stats($since: DateTime!, $jobId: ID) { executionStats(since: $since, jobId: $jobId) { total byStatus { status count } startLagMsP50 startLagMsP99 } }`;

export const PREVIEW = `query Preview($schedule: ScheduleInput!, $count: Int) { previewSchedule(schedule: $schedule, count: $count) { at local } }`;

export const CREATE_JOB = `mutation CreateJob($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`;
export const UPDATE_JOB = `mutation UpdateJob($input: UpdateJobInput!) { updateJob(input: $input) { job { id } } }`;
export const PAUSE_JOB = `mutation PauseJob($id: ID!) { pauseJob(id: $id) { job { id status } } }`;
export const RESUME_JOB = `mutation ResumeJob($id: ID!) { resumeJob(id: $id) { job { id status } } }`;
export const DELETE_JOB = `mutation DeleteJob($id: ID!) { deleteJob(id: $id) { deletedJobId } }`;
export const TRIGGER_JOB = `mutation TriggerJob($id: ID!) { triggerJob(id: $id) { execution { id } } }`;
export const CANCEL_EXECUTION = `mutation CancelExecution($id: ID!) { cancelExecution(id: $id) { execution { id status } } }`;
export const RETRY_EXECUTION = `mutation RetryExecution($id: ID!) { retryExecution(id: $id) { execution { id status } } }`;

export const API_KEYS = `query ApiKeys { apiKeys { id name role prefix createdAt lastUsedAt } }`;
export const CREATE_API_KEY = `mutation CreateApiKey($name: String!, $role: Role!) { createApiKey(name: $name, role: $role) { secret apiKey { id } } }`;
export const REVOKE_API_KEY = `mutation RevokeApiKey($id: ID!) { revokeApiKey(id: $id) { id } }`;
export const ROTATE_WEBHOOK_SECRET = `mutation RotateWebhookSecret { rotateWebhookSecret { secret } }`;

export interface ApiKey {
  id: string;
  name: string;
  role: Role;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
}
