import 'reflect-metadata';
import { Field, Float, Int, ObjectType } from 'type-graphql';

@ObjectType('RetryPolicy')
export class RetryPolicy {
  @Field(() => Int, { description: 'Total attempts, first one included. Default 3.' })
  maxAttempts!: number;

  @Field(() => Float, { description: 'Default 1.' })
  initialBackoffSeconds!: number;

  @Field(() => Float, { description: 'Default 300.' })
  maxBackoffSeconds!: number;

  @Field(() => Float, { description: 'Default 2.' })
  backoffMultiplier!: number;
}
