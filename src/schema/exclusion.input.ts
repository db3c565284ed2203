import 'reflect-metadata';
import { Field, InputType, Int } from 'type-graphql';

@InputType('ExclusionInput', {
  description:
    'A stretch of time in which the job does not run: its occurrences there are recorded SKIPPED with a reason naming the exclusion. ' +
    'Give exactly one of: from and to (local dates, both included, midnight to midnight); cron and durationSeconds (a window opening at each ' +
    'occurrence of cron, under the same DST rules as schedules, until the local clock has moved on by durationSeconds); or calendar (a named ' +
    'calendar of the tenant, see createCalendar; jobs only). At most 20 per job, 200 windows per calendar.',
})
export class ExclusionInput {
  @Field(() => String, {
    nullable: true,
    description: 'Named in the SKIPPED reason (at most 100 characters); default a description of the window. Not for calendar.',
  })
  name?: string | null;

  @Field(() => String, {
    nullable: true,
    description: "IANA zone of the dates or cron; default the job schedule's zone (UTC in a calendar).",
  })
  timezone?: string | null;

  @Field(() => String, { nullable: true, description: 'First excluded local date, YYYY-MM-DD.' })
  from?: string | null;

  @Field(() => String, { nullable: true, description: 'Last excluded local date, YYYY-MM-DD (included; at most 3660 days after from).' })
  to?: string | null;

  @Field(() => String, { nullable: true, description: 'When each window opens, e.g. "0 0 * * 6" (Saturday 00:00).' })
  cron?: string | null;

  @Field(() => Int, {
    nullable: true,
    description:
      'How long each window lasts, in seconds of local clock time (1 to 31622400): 172800 from Saturday 00:00 is the whole weekend, DST or not.',
  })
  durationSeconds?: number | null;

  @Field(() => String, {
    nullable: true,
    description: "Name of one of the tenant's calendars: its windows, kept up to date when it changes.",
  })
  calendar?: string | null;
}
