import { Arg, Authorized, Ctx, Int, Query, Resolver } from 'type-graphql';
import type { Context } from './context.type.js';
import { scopeOf } from './auth-checker.js';
import { MAX_PREVIEW, previewSchedule } from '../domain/schedule/previewSchedule.js';
import { ScheduledTime } from '../schema/execution.type.js';
import { ScheduleInput } from '../schema/schedule.input.js';

@Resolver()
export class ScheduleResolver {
  @Authorized()
  @Query(() => [ScheduledTime], {
    description:
      'The next occurrences a schedule would have from now (or from its startAt), without creating anything. count default 5, at most 100. Invalid schedules are BAD_USER_INPUT with the reason.',
  })
  async previewSchedule(
    @Arg('schedule', () => ScheduleInput) schedule: ScheduleInput,
    @Arg('count', () => Int, { nullable: true }) count: number | null,
    @Ctx() ctx: Context,
  ): Promise<ScheduledTime[]> {
    const wanted = count ?? 5;
    // Charged before the search, which runs on the main thread; an invalid count is refused by previewSchedule.
    if (Number.isInteger(wanted) && wanted >= 1 && wanted <= MAX_PREVIEW) {
      await ctx.app.searchBudget.charge(scopeOf(ctx).identity.tenantId, wanted);
    }
    return previewSchedule(schedule, wanted, ctx.app.clock());
  }
}
