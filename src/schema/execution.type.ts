import 'reflect-metadata';
import { Field, ID, Int, ObjectType } from 'type-graphql';
import type {
  AttemptOutcome as AttemptOutcomeValue,
  ExecutionStatus as ExecutionStatusValue,
  ExecutionTrigger as ExecutionTriggerValue,
} from '../domain/execution.js';
import { AttemptOutcome, ExecutionStatus, ExecutionTrigger } from './enums.js';
import { Node } from './node.type.js';
import { PageInfo } from './pageInfo.type.js';
import { DateTimeScalar, JSONScalar } from './scalars.js';

@ObjectType('ExecutionAttempt')
export class ExecutionAttempt {
  @Field(() => Int)
  number!: number;

  @Field(() => DateTimeScalar)
  startedAt!: Date;

  @Field(() => DateTimeScalar, { nullable: true })
  finishedAt?: Date | null;

  @Field(() => AttemptOutcome, { nullable: true })
  outcome?: AttemptOutcomeValue | null;

  @Field(() => String, { nullable: true })
  error?: string | null;

  @Field(() => Int, { nullable: true, description: 'For HTTP targets.' })
  httpStatus?: number | null;

  @Field(() => String, { nullable: true })
  workerId?: string | null;

  @Field(() => Int, {
    nullable: true,
    description:
      'The wait the receiver asked for with Retry-After on a 429 or 503, as obeyed (capped at 3600 s): the next attempt started no earlier. Null when none was given, it was unusable, or no attempt followed.',
  })
  retryAfterSeconds?: number | null;
}

/**
 * An execution. `job` is not declared here: the Execution resolver adds it with @FieldResolver.
 * Set `__typename: 'Execution'` on values returned where a Node is expected.
 */
@ObjectType('Execution', { implements: Node })
export class Execution implements Node {
  /** Not a GraphQL field: lets Node.resolveType pick this type. */
  declare __typename?: 'Execution';

  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  jobId!: string;

  @Field(() => ExecutionStatus)
  status!: ExecutionStatusValue;

  @Field(() => ExecutionTrigger)
  trigger!: ExecutionTriggerValue;

  @Field(() => DateTimeScalar)
  scheduledFor!: Date;

  @Field(() => DateTimeScalar, { nullable: true })
  queuedAt?: Date | null;

  @Field(() => DateTimeScalar, { nullable: true })
  startedAt?: Date | null;

  @Field(() => DateTimeScalar, { nullable: true })
  finishedAt?: Date | null;

  @Field(() => Int, { nullable: true })
  durationMs?: number | null;

  @Field(() => Int, { nullable: true, description: "First attempt's start minus scheduledFor." })
  startLagMs?: number | null;

  @Field(() => Int, { description: 'Attempts started so far.' })
  attempt!: number;

  @Field(() => Int)
  maxAttempts!: number;

  @Field(() => DateTimeScalar, { nullable: true })
  nextAttemptAt?: Date | null;

  @Field(() => [ExecutionAttempt])
  attempts!: ExecutionAttempt[];

  @Field(() => String, { nullable: true })
  error?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      'Why it was SKIPPED or CANCELLED (overlap policy, misfire policy, the tenant budget of scheduled runs per minute, pause, schedule change, delete, user), in words.',
  })
  reason?: string | null;

  @Field(() => Int, {
    nullable: true,
    description:
      "On a SKIPPED record of occurrences past the tenant's budget of scheduled runs per minute: how many consecutive occurrences of its job it stands for (one or more), the first at scheduledFor and the last at skippedUntil; executionStats counts each. Null on any other execution.",
  })
  skippedCount?: number | null;

  @Field(() => DateTimeScalar, {
    nullable: true,
    description: 'The last occurrence a SKIPPED budget record stands for (see skippedCount); null on any other execution.',
  })
  skippedUntil?: Date | null;

  @Field(() => JSONScalar, {
    nullable: true,
    description: "The handler's result; for HTTP targets { status, headers, body } with the body cut at 64 KiB.",
  })
  result?: unknown;

  @Field(() => DateTimeScalar)
  createdAt!: Date;

  @Field(() => DateTimeScalar)
  updatedAt!: Date;
}

@ObjectType('ExecutionEdge')
export class ExecutionEdge {
  @Field(() => String)
  cursor!: string;

  @Field(() => Execution)
  node!: Execution;
}

@ObjectType('ExecutionConnection')
export class ExecutionConnection {
  @Field(() => [ExecutionEdge])
  edges!: ExecutionEdge[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;
}

@ObjectType('StatusCount')
export class StatusCount {
  @Field(() => ExecutionStatus)
  status!: ExecutionStatusValue;

  @Field(() => Int)
  count!: number;
}

@ObjectType('ExecutionStats')
export class ExecutionStats {
  @Field(() => Int)
  total!: number;

  @Field(() => [StatusCount])
  byStatus!: StatusCount[];

  @Field(() => Int, {
    nullable: true,
    description: 'Over executions that started in the window; null when none did.',
  })
  startLagMsP50?: number | null;

  @Field(() => Int, { nullable: true })
  startLagMsP99?: number | null;
}

@ObjectType('ScheduledTime')
export class ScheduledTime {
  @Field(() => DateTimeScalar)
  at!: Date;

  @Field(() => String, {
    description: "The same instant as wall-clock time in the schedule's time zone, ISO-8601 with its UTC offset.",
  })
  local!: string;
}

@ObjectType('ExecutionEvent')
export class ExecutionEvent {
  @Field(() => Execution)
  execution!: Execution;

  @Field(() => ExecutionStatus, { nullable: true })
  previousStatus?: ExecutionStatusValue | null;

  @Field(() => ExecutionStatus)
  status!: ExecutionStatusValue;

  @Field(() => DateTimeScalar)
  occurredAt!: Date;
}
