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

  @Field(() => [Int], {
    nullable: true,
    description:
      'HTTP statuses (100 to 599, at most 50) that fail the execution at once instead of being retried; [] retries every status. Omitted or null: keeps the current list, or on create the default rule (every 4xx but 408, 425 and 429). Redirects (3xx) are never retried whatever the list says.',
  })
  nonRetryableStatuses?: number[] | null;
}
