import 'reflect-metadata';
import { Field, Int, ObjectType } from 'type-graphql';
import { Exclusion } from './exclusion.type.js';
import { PageInfo } from './pageInfo.type.js';
import { DateTimeScalar } from './scalars.js';

@ObjectType('Calendar', { description: "A tenant's named set of exclusion windows, which jobs name in their exclusions." })
export class Calendar {
  @Field(() => String, { description: 'Unique in the tenant.' })
  name!: string;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => [Exclusion])
  windows!: Exclusion[];

  @Field(() => DateTimeScalar)
  createdAt!: Date;

  @Field(() => DateTimeScalar)
  updatedAt!: Date;
}

@ObjectType('CalendarEdge')
export class CalendarEdge {
  @Field(() => String)
  cursor!: string;

  @Field(() => Calendar)
  node!: Calendar;
}

@ObjectType('CalendarConnection')
export class CalendarConnection {
  @Field(() => [CalendarEdge])
  edges!: CalendarEdge[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;
}

@ObjectType('UpdateCalendarPayload')
export class UpdateCalendarPayload {
  @Field(() => Calendar)
  calendar!: Calendar;

  @Field(() => Int, { description: 'How many jobs naming the calendar got its new windows.' })
  jobsUpdated!: number;
}
