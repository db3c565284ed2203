import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { Context } from './context.type.js';
import { scopeOf } from './auth-checker.js';
import type { ObjectId } from 'mongodb';
import { NotFoundError } from '../errors/index.js';
import { createJob } from '../jobs/createJob.js';
import { upsertJob } from '../jobs/upsertJob.js';
import { parseLabels } from '../domain/labels.js';
import { parseExternalId } from '../domain/externalId.js';
import { deleteJob } from '../jobs/deleteJob.js';
import { jobDeps } from './deps.js';
import { pauseJob } from '../jobs/pauseJob.js';
import { resumeJob } from '../jobs/resumeJob.js';
import { triggerJob } from '../jobs/triggerJob.js';
import { updateJob } from '../jobs/updateJob.js';
import { fromGlobalId, toGlobalId } from '../ids/globalId.js';
import { encodeCursor } from '../pagination/cursor.js';
import { parsePageRequest, toConnection } from '../pagination/pageRequest.js';
import { ExecutionsArgs, JobsArgs } from '../schema/connection.args.js';
import { Execution, ExecutionConnection } from '../schema/execution.type.js';
import { CreateJobInput, UpdateJobInput } from '../schema/job.input.js';
import { Job, JobConnection } from '../schema/job.type.js';
import { DateTimeScalar, JSONScalar } from '../schema/scalars.js';
import { nextRunAt } from '../domain/schedule/nextRunAt.js';
import { DeleteJobPayload, ExecutionPayload, JobPayload } from '../schema/payload.type.js';
import { listExecutions } from './listExecutions.js';
import { toExecutionNode, toJobNode, type ExecutionNode, type JobNode } from './mappers.js';

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
    const filter = {
      statuses: args.filter?.statuses,
      namePrefix: args.filter?.namePrefix,
      labels: parseLabels(args.filter?.labels, 'filter.labels'),
      externalId: parseExternalId(args.filter?.externalId, 'filter.externalId'),
    };
    const rows = await jobs.list(filter, page);
    const connection = toConnection(rows, page, (d) => encodeCursor({ at: d.createdAt, id: d._id }), toJobNode);
    return { ...(connection as Omit<JobConnection, 'filter'>), filter };
  }

  @FieldResolver(() => DateTimeScalar, { nullable: true })
  nextRunAt(@Root() job: JobNode, @Ctx() ctx: Context): Date | null {
    return nextRunAt(job.doc, ctx.app.clock());
  }

  // The description is the shared contract's word for word; how to list history first is on the `filter` argument.
  @FieldResolver(() => ExecutionConnection, { description: 'Newest first (scheduledFor descending).' })
  async executions(
    @Root() job: JobNode,
    @Args(() => ExecutionsArgs) args: ExecutionsArgs,
    @Ctx() ctx: Context,
  ): Promise<ExecutionConnection> {
    return listExecutions(ctx, args, job.doc._id);
  }

  @FieldResolver(() => Execution, {
    nullable: true,
    description:
      'The newest execution (by scheduledFor) that has started or finished (phase HISTORY); null when none. ' +
      "Read at most once per job and request, from the newest entries of the job's executions, so a page of jobs may select it.",
  })
  async lastExecution(@Root() job: JobNode, @Ctx() ctx: Context): Promise<ExecutionNode | null> {
    const doc = await scopeOf(ctx).lastExecutionLoader.load(job.doc._id.toHexString());
    return doc ? toExecutionNode(doc) : null;
  }

  @Authorized('MEMBER')
  @Mutation(() => JobPayload, { description: 'MEMBER or ADMIN.' })
  async createJob(@Arg('input', () => CreateJobInput) input: CreateJobInput, @Ctx() ctx: Context): Promise<JobPayload> {
    const scope = scopeOf(ctx);
    const now = ctx.app.clock();
    // From the quota cache (the write budget has just read it, and it creates the tenant on first use): no round trip.
    const { maxJobs } = await ctx.app.operations.quotas.of(scope.identity.tenantId);
    const { upsert, ...fields } = input;
    const doc = await (upsert ? upsertJob : createJob)(jobDeps(ctx), { _id: scope.identity.tenantId, maxJobs }, fields, now);
    return { job: toJobNode(doc) };
  }

  @Authorized('MEMBER')
  @Mutation(() => JobPayload)
  async updateJob(@Arg('input', () => UpdateJobInput) input: UpdateJobInput, @Ctx() ctx: Context): Promise<JobPayload> {
    const { id, ...fields } = input;
    return { job: toJobNode(await updateJob(jobDeps(ctx), jobObjectId(id), fields, ctx.app.clock())) };
  }

  @Authorized('MEMBER')
  @Mutation(() => JobPayload)
  async pauseJob(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<JobPayload> {
    return { job: toJobNode(await pauseJob(jobDeps(ctx), jobObjectId(id), ctx.app.clock())) };
  }

  @Authorized('MEMBER')
  @Mutation(() => JobPayload)
  async resumeJob(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<JobPayload> {
    return { job: toJobNode(await resumeJob(jobDeps(ctx), jobObjectId(id), ctx.app.clock())) };
  }

  @Authorized('MEMBER')
  @Mutation(() => DeleteJobPayload, { description: 'Cancels its SCHEDULED, QUEUED and RETRYING executions; keeps the history.' })
  async deleteJob(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<DeleteJobPayload> {
    const jobId = jobObjectId(id);
    await deleteJob(jobDeps(ctx), jobId, ctx.app.clock());
    return { deletedJobId: toGlobalId('Job', jobId) };
  }

  @Authorized('MEMBER')
  @Mutation(() => ExecutionPayload, {
    description: "Run now, outside the schedule. payload overrides the job's payload for this execution.",
  })
  async triggerJob(
    @Arg('id', () => ID) id: string,
    @Arg('payload', () => JSONScalar, { nullable: true }) payload: unknown,
    @Ctx() ctx: Context,
  ): Promise<ExecutionPayload> {
    return { execution: toExecutionNode(await triggerJob(jobDeps(ctx), jobObjectId(id), payload, ctx.app.clock())) };
  }
}

/** A Job global id's ObjectId; a malformed id or one of another type is NOT_FOUND, like a missing job. */
function jobObjectId(id: string): ObjectId {
  const parsed = fromGlobalId(id, 'Job');
  if (!parsed) throw new NotFoundError('Job', id);
  return parsed.id;
}
