import 'reflect-metadata';
import { Field, Int, ObjectType } from 'type-graphql';
import type { ScheduleKind as ScheduleKindValue } from '../domain/job.js';
import { ScheduleKind } from './enums.js';
import { DateTimeScalar } from './scalars.js';

@ObjectType('Schedule')
export class Schedule {
  @Field(() => ScheduleKind)
  kind!: ScheduleKindValue;

  @Field(() => String, { nullable: true, description: '5 fields (minute first) or 6 fields (second first).' })
  cron?: string | null;

  @Field(() => String, { description: 'IANA time zone the cron is evaluated in. Default UTC.' })
  timezone!: string;

  @Field(() => Int, { nullable: true })
  intervalSeconds?: number | null;

  @Field(() => DateTimeScalar, { nullable: true })
  runAt?: Date | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'No occurrence before this instant.' })
  startAt?: Date | null;

  @Field(() => DateTimeScalar, {
    nullable: true,
    description: 'No occurrence after this instant; the job becomes COMPLETED after its last one.',
  })
  endAt?: Date | null;

  @Field(() => Int, {
    description: 'Up to this many seconds of random delay added to each occurrence (spreads thundering herds). Default 0.',
  })
  jitterSeconds!: number;
}
