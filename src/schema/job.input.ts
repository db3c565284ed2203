import 'reflect-metadata';
import { Field, ID, InputType, Int, type ClassType } from 'type-graphql';
import type {
  JobStatus as JobStatusValue,
  MisfirePolicy as MisfirePolicyValue,
  OverlapPolicy as OverlapPolicyValue,
  Workload as WorkloadValue,
} from '../domain/job.js';
import { JobStatus, MisfirePolicy, OverlapPolicy, Workload } from './enums.js';
import { ExclusionInput } from './exclusion.input.js';
import { FlowControlInput } from './flowControl.input.js';
import { RetryPolicyInput } from './retryPolicy.input.js';
import { JSONScalar } from './scalars.js';
import { ScheduleInput } from './schedule.input.js';
import { JobTargetInput } from './target.input.js';
import { LabelInput } from './label.input.js';

@InputType('JobFilter')
export class JobFilter {
  @Field(() => [JobStatus], { nullable: true })
  statuses?: JobStatusValue[] | null;

  @Field(() => String, { nullable: true, description: 'Case-insensitive prefix of the job name.' })
  namePrefix?: string | null;

  @Field(() => [LabelInput], { nullable: true, description: 'Jobs carrying every one of these labels (key and value equal).' })
  labels?: LabelInput[] | null;

  @Field(() => String, { nullable: true, description: 'The job with this external id (at most one).' })
  externalId?: string | null;
}

/** The options that tell a create's job definition fields from an update's. */
interface JobDefinitionOptions {
  /** Name under which type-graphql registers the mixin class; no operation uses it, so the schema never prints it. */
  typeName: string;
  /** Whether name, schedule and target are non-null: a create needs them, an update keeps what is omitted. */
  required: boolean;
  targetDescription?: string;
  workloadDescription?: string;
  flowControlDescription?: string;
}

/**
 * Mixin (type-graphql's pattern for sharing input fields): `Base`'s fields, then the fields of a
 * job's definition, which CreateJobInput and UpdateJobInput share, in the contract's order.
 */
function withJobDefinition<TBase extends ClassType>(Base: TBase, options: JobDefinitionOptions) {
  const nullable = !options.required;

  @InputType(options.typeName)
  class JobDefinitionFields extends Base {
    @Field(() => String, { nullable })
    name?: string | null;

    @Field(() => String, { nullable: true })
    description?: string | null;

    @Field(() => ScheduleInput, { nullable })
    schedule?: ScheduleInput | null;

    @Field(() => JobTargetInput, { nullable, description: options.targetDescription })
    target?: JobTargetInput | null;

    @Field(() => JSONScalar, { nullable: true })
    payload?: unknown;

    @Field(() => Workload, { nullable: true, description: options.workloadDescription })
    workload?: WorkloadValue | null;

    @Field(() => Int, { nullable: true })
    timeoutSeconds?: number | null;

    @Field(() => RetryPolicyInput, { nullable: true })
    retryPolicy?: RetryPolicyInput | null;

    @Field(() => OverlapPolicy, { nullable: true })
    overlapPolicy?: OverlapPolicyValue | null;

    @Field(() => MisfirePolicy, { nullable: true })
    misfirePolicy?: MisfirePolicyValue | null;

    @Field(() => FlowControlInput, { nullable: true, description: options.flowControlDescription })
    flowControl?: FlowControlInput | null;

    @Field(() => [ExclusionInput], {
      nullable: true,
      description:
        'When the job does not run: its occurrences inside any of these are recorded SKIPPED naming the exclusion, and nextRunAt and previewSchedule skip them. Replaced whole by an update (an empty list or null removes them), which reschedules the job as a schedule change does: its waiting executions the new exclusions cover are cancelled.',
    })
    exclusions?: ExclusionInput[] | null;

    @Field(() => [LabelInput], {
      nullable: true,
      description: 'At most 32, each key once. An update replaces the whole set; null or an empty list removes them.',
    })
    labels?: LabelInput[] | null;

    @Field(() => String, {
      nullable: true,
      description:
        "Your own id for the job, unique among this tenant's jobs (1 to 200 characters). One another job holds is CONFLICT, naming that job in the message and extensions.jobId. An update's null removes it.",
    })
    externalId?: string | null;
  }
  return JobDefinitionFields;
}

@InputType('CreateJobInput')
export class CreateJobInput extends withJobDefinition(Object, {
  typeName: 'CreateJobDefinition',
  required: true,
  workloadDescription: 'Default IO_BOUND.',
}) {
  // Non-null in the schema (required above), so GraphQL has refused any input without them.
  declare name: string;
  declare schedule: ScheduleInput;
  declare target: JobTargetInput;

  @Field(() => Boolean, { nullable: true, description: 'Create the job PAUSED. Default false.' })
  paused?: boolean | null;

  @Field(() => String, {
    nullable: true,
    description: 'Creating again with the same key returns the job created first, unchanged.',
  })
  idempotencyKey?: string | null;

  @Field(() => Boolean, {
    nullable: true,
    description:
      'With externalId: when a job of this tenant has that externalId, update it with the fields given here (as updateJob: omitted fields keep their value; paused and idempotencyKey are ignored) instead of refusing with CONFLICT; otherwise create the job. Default false.',
  })
  upsert?: boolean | null;
}

/** The job an update changes; a base class so that `id` comes first in UpdateJobInput, as in the contract. */
@InputType('UpdateJobId')
class UpdateJobId {
  @Field(() => ID)
  id!: string;
}

/**
 * Omitted fields are `undefined` (absent); an explicit GraphQL `null` arrives as `null`.
 */
@InputType('UpdateJobInput', {
  description:
    "Omitted fields keep their value. Changing the schedule recomputes nextRunAt and cancels the old schedule's executions that have not started yet, SCHEDULED or QUEUED, except occurrences the new schedule also has (triggerJob's executions are kept).",
})
export class UpdateJobInput extends withJobDefinition(UpdateJobId, {
  typeName: 'UpdateJobDefinition',
  required: false,
  flowControlDescription: 'Replaces the whole flow control (omitted limits are none); null removes it.',
  targetDescription:
    'Replaces the whole target, not merged field by field: give its method and headers too, or they fall back to POST and none. Validated as in createJob; an invalid target is refused (BAD_USER_INPUT) and nothing is changed.',
}) {}
