import 'reflect-metadata';
import { Field, ID, InputType } from 'type-graphql';
import type { ExecutionStatus as ExecutionStatusValue } from '../domain/execution.js';
import type { ExecutionPhase as ExecutionPhaseValue } from '../domain/executionPhase.js';
import { ExecutionPhase, ExecutionStatus } from './enums.js';
import { DateTimeScalar } from './scalars.js';
import { LabelInput } from './label.input.js';

@InputType('ExecutionFilter', {
  description: 'Which executions to list; every given condition must hold. Without phase and statuses, upcoming occurrences come first.',
})
export class ExecutionFilter {
  @Field(() => ID, { nullable: true })
  jobId?: string | null;

  @Field(() => [ExecutionStatus], { nullable: true })
  statuses?: ExecutionStatusValue[] | null;

  @Field(() => ExecutionPhase, {
    nullable: true,
    description: 'HISTORY: started or finished; UPCOMING: not started yet. With statuses, only the statuses in both (possibly none).',
  })
  phase?: ExecutionPhaseValue | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Inclusive.' })
  scheduledAfter?: Date | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Exclusive.' })
  scheduledBefore?: Date | null;

  @Field(() => DateTimeScalar, {
    nullable: true,
    description: 'Inclusive. Executions that have not finished have no finishedAt and match neither finishedAfter nor finishedBefore.',
  })
  finishedAfter?: Date | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Exclusive.' })
  finishedBefore?: Date | null;

  @Field(() => [LabelInput], {
    nullable: true,
    description:
      "Executions of the jobs that carry every one of these labels now (a label changed later applies to the job's past executions too; a deleted job's match none). At most 1000 jobs may match: narrow the filter otherwise (BAD_USER_INPUT).",
  })
  labels?: LabelInput[] | null;

  @Field(() => String, { nullable: true, description: 'Executions of the job with this external id.' })
  jobExternalId?: string | null;
}
