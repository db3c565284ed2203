import { Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import type { Context } from './context.type.js';
import { scopeOf } from './auth-checker.js';
import { JobConnection } from '../schema/job.type.js';

@Resolver(() => JobConnection)
export class JobConnectionResolver {
  /** Counted only when selected: on FerretDB a count reads every job the filter matches. */
  @FieldResolver(() => Int, { description: 'All the jobs the filter matches, on every page.' })
  async totalCount(@Root() connection: JobConnection, @Ctx() ctx: Context): Promise<number> {
    return scopeOf(ctx).jobs.count(connection.filter);
  }
}
