import 'reflect-metadata';
import { Field, InputType, Int } from 'type-graphql';
import { DateTimeScalar } from './scalars.js';

@InputType('ScheduleInput', { description: 'Exactly one of cron, intervalSeconds, runAt.' })
export class ScheduleInput {
  @Field(() => String, { nullable: true })
  cron?: string | null;

  @Field(() => String, { nullable: true })
  timezone?: string | null;

  @Field(() => Int, { nullable: true })
  intervalSeconds?: number | null;

  @Field(() => DateTimeScalar, { nullable: true })
  runAt?: Date | null;

  @Field(() => DateTimeScalar, { nullable: true })
  startAt?: Date | null;

  @Field(() => DateTimeScalar, { nullable: true })
  endAt?: Date | null;

  @Field(() => Int, { nullable: true })
  jitterSeconds?: number | null;
}
