import { registerEnumType } from 'type-graphql';

/*
 * Every enum of the contract. Values equal their names, so a value of each enum is assignable to the
 * matching string-union type of src/domain (e.g. `JobStatus.ACTIVE` is a valid domain `JobStatus`).
 */

export enum Role {
  ADMIN = 'ADMIN',
  MEMBER = 'MEMBER',
  VIEWER = 'VIEWER',
}
registerEnumType(Role, { name: 'Role' });

export enum ScheduleKind {
  CRON = 'CRON',
  INTERVAL = 'INTERVAL',
  ONCE = 'ONCE',
}
registerEnumType(ScheduleKind, { name: 'ScheduleKind' });

export enum HttpMethod {
  GET = 'GET',
  POST = 'POST',
  PUT = 'PUT',
  PATCH = 'PATCH',
  DELETE = 'DELETE',
}
registerEnumType(HttpMethod, { name: 'HttpMethod' });

export enum Workload {
  IO_BOUND = 'IO_BOUND',
  CPU_BOUND = 'CPU_BOUND',
}
registerEnumType(Workload, {
  name: 'Workload',
  description:
    'Job type metadata that decides how a worker runs it: IO_BOUND jobs share a worker at high concurrency, CPU_BOUND jobs run one per core, isolated.',
});

export enum OverlapPolicy {
  ALLOW = 'ALLOW',
  SKIP = 'SKIP',
  BUFFER_ONE = 'BUFFER_ONE',
  CANCEL_PREVIOUS = 'CANCEL_PREVIOUS',
}
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

export enum MisfirePolicy {
  RUN_ONCE = 'RUN_ONCE',
  RUN_ALL = 'RUN_ALL',
  SKIP = 'SKIP',
}
registerEnumType(MisfirePolicy, {
  name: 'MisfirePolicy',
  description: 'What happens to occurrences missed while the scheduler was down.',
  valuesConfig: {
    RUN_ONCE: { description: 'Run one catch-up execution for all missed occurrences, then resume the schedule.' },
    RUN_ALL: { description: 'Run every missed occurrence (at most 100 per job).' },
    SKIP: { description: 'Run none; resume from the next future occurrence.' },
  },
});

export enum JobStatus {
  ACTIVE = 'ACTIVE',
  PAUSED = 'PAUSED',
  COMPLETED = 'COMPLETED',
}
registerEnumType(JobStatus, {
  name: 'JobStatus',
  valuesConfig: {
    COMPLETED: { description: 'A one-off that has run, or a schedule past its endAt.' },
  },
});

export enum ExecutionStatus {
  SCHEDULED = 'SCHEDULED',
  QUEUED = 'QUEUED',
  RUNNING = 'RUNNING',
  RETRYING = 'RETRYING',
  SUCCEEDED = 'SUCCEEDED',
  FAILED = 'FAILED',
  CANCELLED = 'CANCELLED',
  SKIPPED = 'SKIPPED',
}
registerEnumType(ExecutionStatus, {
  name: 'ExecutionStatus',
  valuesConfig: {
    SCHEDULED: { description: 'Created ahead of its time by the scheduler.' },
    QUEUED: { description: 'Handed to the worker queue.' },
    RETRYING: { description: 'An attempt failed; the next one waits for its backoff (see nextAttemptAt).' },
    FAILED: { description: 'All attempts failed.' },
    SKIPPED: {
      description: "Not run, because of the job's overlap policy, or of its misfire policy (SKIP, RUN_ONCE) for an occurrence missed while no scheduler ran (see reason).",
    },
  },
});

export enum ExecutionTrigger {
  SCHEDULE = 'SCHEDULE',
  MANUAL = 'MANUAL',
  CATCH_UP = 'CATCH_UP',
}
registerEnumType(ExecutionTrigger, {
  name: 'ExecutionTrigger',
  valuesConfig: {
    MANUAL: { description: 'triggerJob.' },
    CATCH_UP: { description: 'A misfire catch-up after scheduler downtime.' },
  },
});

export enum AttemptOutcome {
  SUCCEEDED = 'SUCCEEDED',
  FAILED = 'FAILED',
  TIMED_OUT = 'TIMED_OUT',
  CRASHED = 'CRASHED',
  CANCELLED = 'CANCELLED',
}
registerEnumType(AttemptOutcome, {
  name: 'AttemptOutcome',
  valuesConfig: {
    CRASHED: {
      description: 'The worker running it disappeared; the attempt was taken over after the visibility timeout.',
    },
  },
});
