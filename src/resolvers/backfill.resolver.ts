import { Arg, Authorized, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import type { Context } from './context.type.js';
import { jobDeps } from './deps.js';
import { backfillJob } from '../jobs/backfillJob.js';
import { formatLocal } from '../domain/schedule/formatLocal.js';
import { NotFoundError } from '../errors/index.js';
import { fromGlobalId } from '../ids/globalId.js';
import { BackfillResult } from '../schema/backfill.type.js';
import { DateTimeScalar } from '../schema/scalars.js';
import { toJobNode } from './mappers.js';

@Resolver()
export class BackfillResolver {
  @Authorized('MEMBER')
  @Mutation(() => BackfillResult, {
    description:
      "Creates the job's past occurrences in [from, to) as executions with trigger BACKFILL, paced, each due at its nominal instant (scheduledFor). An occurrence that has an execution already is not created again, so a repeated call creates nothing. to may not be later than now. More occurrences than BACKFILL_MAX_OCCURRENCES (default 500) is BAD_USER_INPUT with maxOccurrences; more than the tenant's waiting room is QUOTA_EXCEEDED; nothing is created then. dryRun returns the instants and creates nothing.",
  })
  async backfillJob(
    @Arg('id', () => ID) id: string,
    @Arg('from', () => DateTimeScalar) from: Date,
    @Arg('to', () => DateTimeScalar) to: Date,
    @Arg('dryRun', () => Boolean, { nullable: true }) dryRun: boolean | null,
    @Ctx() ctx: Context,
  ): Promise<BackfillResult> {
    const parsed = fromGlobalId(id, 'Job');
    if (!parsed) throw new NotFoundError('Job', id);
    const deps = { ...jobDeps(ctx), searches: ctx.app.searchBudget };
    const outcome = await backfillJob(deps, parsed.id, { from, to, dryRun: dryRun ?? false }, ctx.app.clock());
    const { timezone } = outcome.job.schedule;
    return {
      job: toJobNode(outcome.job),
      dryRun: outcome.dryRun,
      instants: outcome.instants.map((at) => ({ at, local: formatLocal(at, timezone) })),
      excluded: outcome.excluded,
      created: outcome.created.length,
      existing: outcome.existing,
      lastStartAt: outcome.lastStartAt,
    };
  }
}
