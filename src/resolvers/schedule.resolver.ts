import { Arg, Authorized, Ctx, Int, Query, Resolver } from 'type-graphql';
import type { Context } from './context.type.js';
import { previewSchedule } from '../domain/schedule/previewSchedule.js';
import { ScheduledTime } from '../schema/execution.type.js';
import { ScheduleInput } from '../schema/schedule.input.js';

@Resolver()
export class ScheduleResolver {
  @Authorized()
  @Query(() => [ScheduledTime], {
    description:
      'The next occurrences a schedule would have from now (or from its startAt), without creating anything. count default 5, at most 100. Invalid schedules are BAD_USER_INPUT with the reason.',
  })
  previewSchedule(
    @Arg('schedule', () => ScheduleInput) schedule: ScheduleInput,
    @Arg('count', () => Int, { nullable: true }) count: number | null,
    @Ctx() ctx: Context,
  ): ScheduledTime[] {
    return previewSchedule(schedule, count ?? 5, ctx.app.clock());
  }
}
