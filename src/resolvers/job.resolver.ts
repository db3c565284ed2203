import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { Context } from '../api/context.type.js';
import { scopeOf } from '../auth/auth-checker.js';
import { createJob } from '../jobs/createJob.js';
import { fromGlobalId } from '../ids/globalId.js';
import { encodeCursor } from '../pagination/cursor.js';
import { parsePageRequest, toConnection } from '../pagination/pageRequest.js';
import { ExecutionsArgs, JobsArgs } from '../schema/connection.args.js';
import { ExecutionConnection } from '../schema/execution.type.js';
import { CreateJobInput, UpdateJobInput } from '../schema/job.input.js';
import { Job, JobConnection } from '../schema/job.type.js';
import { JSONScalar } from '../schema/scalars.js';
import { DeleteJobPayload, ExecutionPayload, JobPayload } from '../schema/payload.type.js';
import { listExecutions } from './listExecutions.js';
import { toJobNode, type JobNode } from './mappers.js';
import { notImplemented } from './notImplemented.js';

@Resolver(() => Job)
@Authorized()
export class JobResolver {
  @Query(() => Job, { nullable: true })
  async job(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<JobNode | null> {
    const parsed = fromGlobalId(id, 'Job');
    const doc = parsed && (await scopeOf(ctx).jobs.findById(parsed.id));
    return doc ? toJobNode(doc) : null;
  }

  @Query(() => JobConnection, { description: 'Newest first (createdAt descending). first/last at most 100; default first 20.' })
  async jobs(@Args(() => JobsArgs) args: JobsArgs, @Ctx() ctx: Context): Promise<JobConnection> {
    const { jobs } = scopeOf(ctx);
    const page = parsePageRequest(args);
    const filter = { statuses: args.filter?.statuses, namePrefix: args.filter?.namePrefix };
    const [rows, totalCount] = await Promise.all([jobs.list(filter, page), jobs.count(filter)]);
    const connection = toConnection(rows, page, (d) => encodeCursor({ at: d.createdAt, id: d._id }), toJobNode);
    return { ...(connection as Omit<JobConnection, 'totalCount'>), totalCount };
  }

  @FieldResolver(() => ExecutionConnection, { description: 'Newest first (scheduledFor descending).' })
  async executions(@Root() job: JobNode, @Args(() => ExecutionsArgs) args: ExecutionsArgs, @Ctx() ctx: Context): Promise<ExecutionConnection> {
    return listExecutions(ctx, args, job.doc._id);
  }

  @Authorized('MEMBER')
  @Mutation(() => JobPayload, { description: 'MEMBER or ADMIN.' })
  async createJob(@Arg('input', () => CreateJobInput) input: CreateJobInput, @Ctx() ctx: Context): Promise<JobPayload> {
    const scope = scopeOf(ctx);
    const now = ctx.app.clock();
    const tenant = await ctx.app.tenants.ensure(scope.identity.tenantId, now);
    const doc = await createJob(
      { jobs: scope.jobs, materialise: ctx.app.materialise, handlerNames: ctx.app.handlerNames, lookAheadMs: ctx.app.lookAheadMs, logger: ctx.app.logger },
      tenant,
      input,
      now,
    );
    return { job: toJobNode(doc) };
  }

  @Authorized('MEMBER')
  @Mutation(() => JobPayload)
  updateJob(@Arg('input', () => UpdateJobInput) _input: UpdateJobInput): JobPayload {
    return notImplemented('updateJob');
  }

  @Authorized('MEMBER')
  @Mutation(() => JobPayload)
  pauseJob(@Arg('id', () => ID) _id: string): JobPayload {
    return notImplemented('pauseJob');
  }

  @Authorized('MEMBER')
  @Mutation(() => JobPayload)
  resumeJob(@Arg('id', () => ID) _id: string): JobPayload {
    return notImplemented('resumeJob');
  }

  @Authorized('MEMBER')
  @Mutation(() => DeleteJobPayload, { description: 'Cancels its SCHEDULED, QUEUED and RETRYING executions; keeps the history.' })
  deleteJob(@Arg('id', () => ID) _id: string): DeleteJobPayload {
    return notImplemented('deleteJob');
  }

  @Authorized('MEMBER')
  @Mutation(() => ExecutionPayload, { description: "Run now, outside the schedule. payload overrides the job's payload for this execution." })
  triggerJob(@Arg('id', () => ID) _id: string, @Arg('payload', () => JSONScalar, { nullable: true }) _payload: unknown): ExecutionPayload {
    return notImplemented('triggerJob');
  }
}
