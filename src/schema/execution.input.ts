import 'reflect-metadata';
import { Field, ID, InputType } from 'type-graphql';
import type { ExecutionStatus as ExecutionStatusValue } from '../domain/execution.js';
import type { ExecutionPhase as ExecutionPhaseValue } from '../domain/executionPhase.js';
import { ExecutionPhase, ExecutionStatus } from './enums.js';
import { DateTimeScalar } from './scalars.js';

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
}
