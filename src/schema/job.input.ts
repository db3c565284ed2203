import 'reflect-metadata';
import { Field, ID, InputType, Int } from 'type-graphql';
import type {
  JobStatus as JobStatusValue,
  MisfirePolicy as MisfirePolicyValue,
  OverlapPolicy as OverlapPolicyValue,
  Workload as WorkloadValue,
} from '../domain/job.js';
import { JobStatus, MisfirePolicy, OverlapPolicy, Workload } from './enums.js';
import { RetryPolicyInput } from './retryPolicy.input.js';
import { JSONScalar } from './scalars.js';
import { ScheduleInput } from './schedule.input.js';
import { JobTargetInput } from './target.input.js';

@InputType('JobFilter')
export class JobFilter {
  @Field(() => [JobStatus], { nullable: true })
  statuses?: JobStatusValue[] | null;

  @Field(() => String, { nullable: true, description: 'Case-insensitive prefix of the job name.' })
  namePrefix?: string | null;
}

@InputType('CreateJobInput')
export class CreateJobInput {
  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => ScheduleInput)
  schedule!: ScheduleInput;

  @Field(() => JobTargetInput)
  target!: JobTargetInput;

  @Field(() => JSONScalar, { nullable: true })
  payload?: unknown;

  @Field(() => Workload, { nullable: true, description: 'Default IO_BOUND.' })
  workload?: WorkloadValue | null;

  @Field(() => Int, { nullable: true })
  timeoutSeconds?: number | null;

  @Field(() => RetryPolicyInput, { nullable: true })
  retryPolicy?: RetryPolicyInput | null;

  @Field(() => OverlapPolicy, { nullable: true })
  overlapPolicy?: OverlapPolicyValue | null;

  @Field(() => MisfirePolicy, { nullable: true })
  misfirePolicy?: MisfirePolicyValue | null;

  @Field(() => Boolean, { nullable: true, description: 'Create the job PAUSED. Default false.' })
  paused?: boolean | null;

  @Field(() => String, {
    nullable: true,
    description: 'Creating again with the same key returns the job created first, unchanged.',
  })
  idempotencyKey?: string | null;
}

/**
 * Omitted fields are `undefined` (absent); an explicit GraphQL `null` arrives as `null`.
 */
@InputType('UpdateJobInput', {
  description:
    "Omitted fields keep their value. Changing the schedule recomputes nextRunAt and cancels the old schedule's executions that have not started yet, SCHEDULED or QUEUED, except occurrences the new schedule also has (triggerJob's executions are kept).",
})
export class UpdateJobInput {
  @Field(() => ID)
  id!: string;

  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => ScheduleInput, { nullable: true })
  schedule?: ScheduleInput | null;

  @Field(() => JobTargetInput, {
    nullable: true,
    description:
      'Replaces the whole target, not merged field by field: give its method and headers too, or they fall back to POST and none. Validated as in createJob; an invalid target is refused (BAD_USER_INPUT) and nothing is changed.',
  })
  target?: JobTargetInput | null;

  @Field(() => JSONScalar, { nullable: true })
  payload?: unknown;

  @Field(() => Workload, { nullable: true })
  workload?: WorkloadValue | null;

  @Field(() => Int, { nullable: true })
  timeoutSeconds?: number | null;

  @Field(() => RetryPolicyInput, { nullable: true })
  retryPolicy?: RetryPolicyInput | null;

  @Field(() => OverlapPolicy, { nullable: true })
  overlapPolicy?: OverlapPolicyValue | null;

  @Field(() => MisfirePolicy, { nullable: true })
  misfirePolicy?: MisfirePolicyValue | null;
}
