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

  @Field(() => [Int], {
    nullable: true,
    description:
      'HTTP statuses that fail the execution at once instead of being retried; [] retries every status. Null: the default rule, every 4xx but 408 (Request Timeout), 425 (Too Early) and 429 (Too Many Requests). Redirects (3xx) are never retried.',
  })
  nonRetryableStatuses?: number[] | null;
}
