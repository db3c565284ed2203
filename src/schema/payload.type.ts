import 'reflect-metadata';
import { Field, ID, ObjectType } from 'type-graphql';
import { Execution } from './execution.type.js';
import { Job } from './job.type.js';

@ObjectType('JobPayload')
export class JobPayload {
  @Field(() => Job)
  job!: Job;
}

@ObjectType('DeleteJobPayload')
export class DeleteJobPayload {
  @Field(() => ID)
  deletedJobId!: string;
}

@ObjectType('ExecutionPayload')
export class ExecutionPayload {
  @Field(() => Execution)
  execution!: Execution;
}
