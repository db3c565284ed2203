import { Arg, Args, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { Context } from './context.type.js';
import { scopeOf } from './auth-checker.js';
import { createCalendar } from '../jobs/createCalendar.js';
import { deleteCalendar } from '../jobs/deleteCalendar.js';
import { updateCalendar } from '../jobs/updateCalendar.js';
import { encodeCursor } from '../pagination/cursor.js';
import { parsePageRequest, toConnection } from '../pagination/pageRequest.js';
import { CalendarInput } from '../schema/calendar.input.js';
import { Calendar, CalendarConnection, UpdateCalendarPayload } from '../schema/calendar.type.js';
import { ConnectionArgs } from '../schema/connection.args.js';
import { toCalendar } from './mappers.js';

/** The tenant's named calendars of exclusion windows (see ExclusionInput). */
@Resolver(() => Calendar)
export class CalendarResolver {
  @Authorized()
  @Query(() => CalendarConnection, { description: "The tenant's calendars, newest first. first/last at most 100; default first 20." })
  async calendars(@Args(() => ConnectionArgs) args: ConnectionArgs, @Ctx() ctx: Context): Promise<CalendarConnection> {
    const page = parsePageRequest(args);
    const rows = await scopeOf(ctx).calendars.list(page);
    return toConnection(rows, page, (d) => encodeCursor({ at: d.createdAt, id: d._id }), toCalendar) as CalendarConnection;
  }

  @Authorized('MEMBER')
  @Mutation(() => Calendar, {
    description: 'MEMBER or ADMIN. Defines a named calendar of exclusion windows; CONFLICT when the name is taken. At most 100 per tenant.',
  })
  async createCalendar(@Arg('input', () => CalendarInput) input: CalendarInput, @Ctx() ctx: Context): Promise<Calendar> {
    const { calendars, changeLog } = scopeOf(ctx);
    return toCalendar(await createCalendar({ calendars, changes: changeLog }, input, ctx.app.clock()));
  }

  @Authorized('MEMBER')
  @Mutation(() => UpdateCalendarPayload, {
    description:
      'MEMBER or ADMIN. Replaces the windows (and description) of the calendar named input.name, and of every job naming it: their nextRunAt at once, their occurrences from the next materialisation on.',
  })
  async updateCalendar(@Arg('input', () => CalendarInput) input: CalendarInput, @Ctx() ctx: Context): Promise<UpdateCalendarPayload> {
    const { calendars, changeLog } = scopeOf(ctx);
    const { calendar, jobsUpdated } = await updateCalendar({ calendars, changes: changeLog }, input, ctx.app.clock());
    return { calendar: toCalendar(calendar), jobsUpdated };
  }

  @Authorized('MEMBER')
  @Mutation(() => Boolean, {
    description: 'MEMBER or ADMIN. Deletes a calendar; CONFLICT naming the jobs while any job names it in its exclusions.',
  })
  async deleteCalendar(@Arg('name', () => String) name: string, @Ctx() ctx: Context): Promise<boolean> {
    const { calendars, changeLog } = scopeOf(ctx);
    await deleteCalendar({ calendars, changes: changeLog }, name, ctx.app.clock());
    return true;
  }
}
