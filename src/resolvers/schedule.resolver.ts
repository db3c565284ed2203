import { Arg, Authorized, Ctx, Int, Query, Resolver } from 'type-graphql';
import type { Context } from './context.type.js';
import { scopeOf } from './auth-checker.js';
import { MAX_PREVIEW, previewSchedule } from '../domain/schedule/previewSchedule.js';
import { ScheduledTime } from '../schema/execution.type.js';
import { ScheduleInput } from '../schema/schedule.input.js';
import { ExclusionInput } from '../schema/exclusion.input.js';
import { previewExclusions } from '../jobs/jobExclusions.js';

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
    @Arg('exclusions', () => [ExclusionInput], {
      nullable: true,
      description:
        "Leave out the occurrences inside these (as a job's exclusions; calendars by name); BAD_USER_INPUT when they cover all of them.",
    })
    exclusions?: ExclusionInput[] | null,
  ): Promise<ScheduledTime[]> {
    const wanted = count ?? 5;
    // Charged before the search, which runs on the main thread; an invalid count is refused by previewSchedule.
    if (Number.isInteger(wanted) && wanted >= 1 && wanted <= MAX_PREVIEW) {
      await ctx.app.searchBudget.charge(scopeOf(ctx).identity.tenantId, wanted);
    }
    const now = ctx.app.clock();
    const windows = exclusions?.length ? await previewExclusions(scopeOf(ctx).calendars, exclusions, schedule.timezone, now) : [];
    return previewSchedule(schedule, wanted, now, windows);
  }
}
