import 'reflect-metadata';
import { Field, InputType } from 'type-graphql';
import { ExclusionInput } from './exclusion.input.js';

@InputType('CalendarInput')
export class CalendarInput {
  @Field(() => String, { description: '1 to 64 letters, digits, "_" or "-"; unique in the tenant.' })
  name!: string;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => [ExclusionInput], { description: 'Dates and cron windows (no calendar); at most 200.' })
  windows!: ExclusionInput[];
}
