import 'reflect-metadata';
import { Field, Int, ObjectType } from 'type-graphql';
import { DateTimeScalar } from './scalars.js';
import { ScheduledTime } from './execution.type.js';
import { Job } from './job.type.js';

@ObjectType('BackfillResult', { description: 'What backfillJob created, or would create (dryRun).' })
export class BackfillResult {
  @Field(() => Job)
  job!: Job;

  @Field(() => Boolean, { description: 'True when nothing was created: a dry run.' })
  dryRun!: boolean;

  @Field(() => [ScheduledTime], {
    description:
      "The job's occurrences in [from, to) outside its exclusion windows, oldest first, as UTC and local time in the schedule's zone (the engine of previewSchedule), whether they had an execution already or not.",
  })
  instants!: ScheduledTime[];

  @Field(() => Int, {
    description:
      "Occurrences in [from, to) inside one of the job's exclusion windows: left out, neither created nor listed in instants (the scheduler records them SKIPPED).",
  })
  excluded!: number;

  @Field(() => Int, { description: 'Executions this call created, with trigger BACKFILL (0 on a dry run).' })
  created!: number;

  @Field(() => Int, {
    nullable: true,
    description:
      'Occurrences that had an execution already (of the schedule or of an earlier backfill, in any state) and were left alone; null on a dry run.',
  })
  existing?: number | null;

  @Field(() => DateTimeScalar, {
    nullable: true,
    description:
      'When the last execution this call created is due to start: a backfill is paced (BACKFILL_EXECUTIONS_PER_SECOND, and one per timeoutSeconds for a job whose overlap policy is not ALLOW). Null when none was created.',
  })
  lastStartAt?: Date | null;
}
