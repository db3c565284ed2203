import 'reflect-metadata';
import { Field, ID, Int, ObjectType } from 'type-graphql';
import { Role } from './enums.js';

@ObjectType('TenantQuota')
export class TenantQuota {
  @Field(() => Int)
  maxJobs!: number;

  @Field(() => Int)
  jobCount!: number;

  @Field(() => Int)
  maxConcurrentExecutions!: number;

  @Field(() => Int)
  maxExecutionsPerMinute!: number;

  @Field(() => Int, { description: 'Finished executions are kept this many days after they finished, then deleted.' })
  executionRetentionDays!: number;
}

@ObjectType('Viewer', {
  description: 'Who the token says the caller is. The tenant always comes from the token, never from an argument.',
})
export class Viewer {
  @Field(() => ID)
  tenantId!: string;

  @Field(() => String)
  subject!: string;

  @Field(() => Role)
  role!: `${Role}`;

  @Field(() => TenantQuota)
  quota!: TenantQuota;
}
