import 'reflect-metadata';
import { Field, Float, InputType, Int } from 'type-graphql';

@InputType('RetryPolicyInput')
export class RetryPolicyInput {
  @Field(() => Int, { nullable: true })
  maxAttempts?: number | null;

  @Field(() => Float, { nullable: true })
  initialBackoffSeconds?: number | null;

  @Field(() => Float, { nullable: true })
  maxBackoffSeconds?: number | null;

  @Field(() => Float, { nullable: true })
  backoffMultiplier?: number | null;
}
