import 'reflect-metadata';
import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';

export enum ExclusionKind {
  DATES = 'DATES',
  CRON = 'CRON',
  CALENDAR = 'CALENDAR',
}
registerEnumType(ExclusionKind, { name: 'ExclusionKind', description: 'Which fields of an Exclusion are set.' });

@ObjectType('Exclusion', { description: 'See ExclusionInput.' })
export class Exclusion {
  @Field(() => ExclusionKind)
  kind!: ExclusionKind;

  @Field(() => String, { nullable: true, description: 'The name SKIPPED reasons use (null for a calendar: its windows have theirs).' })
  name?: string | null;

  @Field(() => String, { nullable: true })
  timezone?: string | null;

  @Field(() => String, { nullable: true })
  from?: string | null;

  @Field(() => String, { nullable: true })
  to?: string | null;

  @Field(() => String, { nullable: true })
  cron?: string | null;

  @Field(() => Int, { nullable: true })
  durationSeconds?: number | null;

  @Field(() => String, { nullable: true })
  calendar?: string | null;
}
