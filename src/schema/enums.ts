import { registerEnumType } from 'type-graphql';
import { ATTEMPT_OUTCOMES, EXECUTION_STATUSES, EXECUTION_TRIGGERS } from '../domain/execution.js';
import { EXECUTION_PHASES } from '../domain/executionPhase.js';
import { BULK_OPERATION_KINDS, BULK_OPERATION_STATUSES } from '../domain/bulkOperation.js';
import { HTTP_METHODS, JOB_STATUSES, MISFIRE_POLICIES, OVERLAP_POLICIES, SCHEDULE_KINDS, WORKLOADS } from '../domain/job.js';
import { ROLE_NAMES } from '../domain/role.js';
import { CHANGE_ACTIONS, CHANGE_TARGET_TYPES } from '../domain/change.js';

/*
 * Every enum of the contract, registered from the domain's own `as const` lists, so the domain's
 * string unions and the GraphQL enums cannot drift apart; only names and descriptions are added here.
 */

/** The object type-graphql registers as an enum: each value keyed by itself, in the list's order. */
export function enumOf<const Value extends string>(values: readonly Value[]): { readonly [V in Value]: V } {
  return Object.fromEntries(values.map((value) => [value, value])) as { [V in Value]: V };
}

export const Role = enumOf(ROLE_NAMES);
registerEnumType(Role, { name: 'Role' });

export const ScheduleKind = enumOf(SCHEDULE_KINDS);
registerEnumType(ScheduleKind, { name: 'ScheduleKind' });

export const HttpMethod = enumOf(HTTP_METHODS);
registerEnumType(HttpMethod, { name: 'HttpMethod' });

export const Workload = enumOf(WORKLOADS);
registerEnumType(Workload, {
  name: 'Workload',
  description:
    'Job type metadata that decides how a worker runs it: IO_BOUND jobs share a worker at high concurrency, CPU_BOUND jobs run one per core, isolated.',
});

export const OverlapPolicy = enumOf(OVERLAP_POLICIES);
registerEnumType(OverlapPolicy, {
  name: 'OverlapPolicy',
  description: 'What happens when an occurrence is due while an earlier execution of the same job is still running.',
  valuesConfig: {
    ALLOW: { description: 'Run both.' },
    SKIP: { description: 'Record the new occurrence as SKIPPED.' },
    BUFFER_ONE: { description: 'Hold at most one occurrence until the running one finishes; further ones are SKIPPED.' },
    CANCEL_PREVIOUS: { description: 'Cancel the running execution, then run the new one.' },
  },
});

export const MisfirePolicy = enumOf(MISFIRE_POLICIES);
registerEnumType(MisfirePolicy, {
  name: 'MisfirePolicy',
  description: 'What happens to occurrences missed while the scheduler was down.',
  valuesConfig: {
    RUN_ONCE: { description: 'Run one catch-up execution for all missed occurrences, then resume the schedule.' },
    RUN_ALL: { description: 'Run every missed occurrence (at most 100 per job).' },
    SKIP: { description: 'Run none; resume from the next future occurrence.' },
  },
});

export const JobStatus = enumOf(JOB_STATUSES);
registerEnumType(JobStatus, {
  name: 'JobStatus',
  valuesConfig: {
    COMPLETED: { description: 'A one-off that has run, or a schedule past its endAt.' },
  },
});

export const ExecutionStatus = enumOf(EXECUTION_STATUSES);
registerEnumType(ExecutionStatus, {
  name: 'ExecutionStatus',
  valuesConfig: {
    SCHEDULED: { description: 'Created ahead of its time by the scheduler.' },
    QUEUED: { description: 'Handed to the worker queue.' },
    RETRYING: { description: 'An attempt failed; the next one waits for its backoff (see nextAttemptAt).' },
    FAILED: { description: 'All attempts failed.' },
    SKIPPED: {
      description:
        "Not run, because of the job's overlap policy, or of its misfire policy (SKIP, RUN_ONCE) for an occurrence missed while no scheduler ran (see reason).",
    },
  },
});

export const ExecutionPhase = enumOf(EXECUTION_PHASES);
registerEnumType(ExecutionPhase, {
  name: 'ExecutionPhase',
  valuesConfig: {
    HISTORY: {
      description: 'Started or finished: every status but SCHEDULED and QUEUED (RUNNING, RETRYING, SUCCEEDED, FAILED, CANCELLED, SKIPPED).',
    },
    UPCOMING: { description: 'Not started yet: SCHEDULED and QUEUED.' },
  },
});

export const ExecutionTrigger = enumOf(EXECUTION_TRIGGERS);
registerEnumType(ExecutionTrigger, {
  name: 'ExecutionTrigger',
  valuesConfig: {
    MANUAL: { description: 'triggerJob.' },
    CATCH_UP: { description: 'A misfire catch-up after scheduler downtime.' },
    BACKFILL: {
      description:
        'backfillJob: a past occurrence created on request; scheduledFor is its nominal instant, so it is late by design: its startLagMs is null and executionStats leaves it out of the start-lag percentiles.',
    },
  },
});

export const AttemptOutcome = enumOf(ATTEMPT_OUTCOMES);
registerEnumType(AttemptOutcome, {
  name: 'AttemptOutcome',
  valuesConfig: {
    CRASHED: {
      description: 'The worker running it disappeared; the attempt was taken over after the visibility timeout.',
    },
  },
});

export const BulkOperationKind = enumOf(BULK_OPERATION_KINDS);
registerEnumType(BulkOperationKind, {
  name: 'BulkOperationKind',
  valuesConfig: {
    RETRY: { description: 'retryExecutions: each FAILED or CANCELLED execution of the set queued again.' },
    CANCEL: { description: 'cancelExecutions: each waiting or running execution of the set cancelled.' },
  },
});

export const BulkOperationStatus = enumOf(BULK_OPERATION_STATUSES);
registerEnumType(BulkOperationStatus, {
  name: 'BulkOperationStatus',
  valuesConfig: {
    RUNNING: { description: 'Items are being handled (or will be, after a restart: another api process resumes it).' },
    SUCCEEDED: { description: 'Every item was handled: done + failed = total (failed ones are in errors).' },
    FAILED: { description: 'The operation could not go on (see reason); done + failed say how far it got.' },
  },
});

export const ChangeAction = enumOf(CHANGE_ACTIONS);
registerEnumType(ChangeAction, {
  name: 'ChangeAction',
  description: 'The mutation that made a change (one value per mutation that records one).',
  valuesConfig: {
    RETRY_EXECUTIONS: { description: 'retryExecutions: the bulk operation started (its filter and count), not each execution.' },
    CANCEL_EXECUTIONS: { description: 'cancelExecutions: the bulk operation started (its filter and count), not each execution.' },
  },
});

export const ChangeTargetType = enumOf(CHANGE_TARGET_TYPES);
registerEnumType(ChangeTargetType, {
  name: 'ChangeTargetType',
  description: 'The kind of object a change was made to.',
  valuesConfig: {
    TENANT: { description: "The tenant's own record (its webhook signing secret); the id is the tenant id." },
    CALENDAR: { description: 'A named calendar of exclusion windows; the id is its name.' },
  },
});
