/**
 * Attribute names of Kairos spans. Only ids, names, counts and outcomes go on a span: never a
 * payload, header, URL, token or error text a tenant wrote.
 */
export const SPAN_ATTRIBUTES = {
  tenantId: 'kairos.tenant.id',
  jobId: 'kairos.job.id',
  /** The execution's global id, as the API and the X-Kairos-Execution-Id header show it. */
  executionId: 'kairos.execution.id',
  attempt: 'kairos.attempt.number',
  /** How the attempt ended: SUCCEEDED, FAILED, TIMED_OUT, CANCELLED or CRASHED. */
  outcome: 'kairos.attempt.outcome',
  workload: 'kairos.workload',
  /** HTTP or HANDLER. */
  targetKind: 'kairos.target.kind',
  trigger: 'kairos.trigger',
  /** The leader's fencing token during the sweep pass. */
  fencingToken: 'kairos.scheduler.fencing_token',
  sweepJobs: 'kairos.sweep.jobs',
  sweepExecutions: 'kairos.sweep.executions',
  sweepBehindMs: 'kairos.sweep.behind_ms',
  /** Queue entries an overdue-check pass read, and those it found overdue. */
  overdueRead: 'kairos.alerts.overdue_read',
  overdueFound: 'kairos.alerts.overdue_found',
  /** The first GraphQL error's `extensions.code`. */
  graphqlErrorCode: 'kairos.graphql.error_code',
  // Copied from the incubating semantic conventions (libraries are told not to import those).
  graphqlOperationName: 'graphql.operation.name',
  graphqlOperationType: 'graphql.operation.type',
} as const;
