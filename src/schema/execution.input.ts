import 'reflect-metadata';
import { Field, ID, InputType } from 'type-graphql';
import type { ExecutionStatus as ExecutionStatusValue } from '../domain/execution.js';
import { ExecutionStatus } from './enums.js';
import { DateTimeScalar } from './scalars.js';

@InputType('ExecutionFilter')
export class ExecutionFilter {
  @Field(() => ID, { nullable: true })
  jobId?: string | null;

  @Field(() => [ExecutionStatus], { nullable: true })
  statuses?: ExecutionStatusValue[] | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Inclusive.' })
  scheduledAfter?: Date | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Exclusive.' })
  scheduledBefore?: Date | null;
}
