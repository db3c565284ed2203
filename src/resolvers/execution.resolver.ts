import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { Context } from './context.type.js';
import { scopeOf } from './auth-checker.js';
import { fromGlobalId } from '../ids/globalId.js';
import { ExecutionsArgs } from '../schema/connection.args.js';
import { Execution, ExecutionConnection, ExecutionStats } from '../schema/execution.type.js';
import { Job } from '../schema/job.type.js';
import { ExecutionPayload } from '../schema/payload.type.js';
import { DateTimeScalar } from '../schema/scalars.js';
import { listExecutions } from './listExecutions.js';
import { toExecutionNode, toJobNode, type ExecutionNode, type JobNode } from './mappers.js';
import { executionStats } from '../executions/executionStats.js';
import { inTenantScan } from './tenantScan.js';
import { jobDeps } from './deps.js';
import { cancelExecution } from '../executions/cancelExecution.js';
import { retryExecution } from '../executions/retryExecution.js';
import { whyWaiting } from '../executions/whyWaiting.js';
import { NotFoundError } from '../errors/index.js';
import type { ObjectId } from 'mongodb';

@Resolver(() => Execution)
@Authorized()
export class ExecutionResolver {
  @Query(() => Execution, { nullable: true })
  async execution(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<ExecutionNode | null> {
    const parsed = fromGlobalId(id, 'Execution');
    const doc = parsed && (await scopeOf(ctx).executions.findById(parsed.id));
    return doc ? toExecutionNode(doc) : null;
  }

  // The description is the shared contract's word for word; how to list history first is on the `filter` argument.
  @Query(() => ExecutionConnection, {
    description: 'Newest first (scheduledFor descending). Reads the executions collection; first/last at most 100; default first 20.',
  })
  async executions(@Args(() => ExecutionsArgs) args: ExecutionsArgs, @Ctx() ctx: Context): Promise<ExecutionConnection> {
    return listExecutions(ctx, args);
  }

  @Query(() => ExecutionStats, { description: 'Counts over executions scheduled in [since, until).' })
  async executionStats(
    @Arg('since', () => DateTimeScalar) since: Date,
    @Arg('until', () => DateTimeScalar, { nullable: true }) until: Date | null,
    @Arg('jobId', () => ID, { nullable: true }) jobId: string | null,
    @Ctx() ctx: Context,
  ): Promise<ExecutionStats> {
    const parsed = jobId ? fromGlobalId(jobId, 'Job') : null;
    // A malformed job id matches nothing, exactly like an id that does not exist.
    if (jobId && !parsed) return { total: 0, byStatus: [], startLagMsP50: null, startLagMsP99: null };
    const stats = () => executionStats(scopeOf(ctx).executions, since, until, parsed?.id ?? null, ctx.app.clock());
    return parsed ? stats() : inTenantScan(ctx.app.tenantScans, scopeOf(ctx).identity.tenantId, stats);
  }

  @FieldResolver(() => Job, { nullable: true, description: 'Null when the job has been deleted since.' })
  async job(@Root() execution: ExecutionNode, @Ctx() ctx: Context): Promise<JobNode | null> {
    const doc = await scopeOf(ctx).jobLoader.load(execution.doc.jobId.toHexString());
    return doc ? toJobNode(doc) : null;
  }

  @FieldResolver(() => String, {
    nullable: true,
    description:
      "Why a QUEUED or RETRYING execution has not started though due, when Kairos knows: its job's flow-control key is at its limit (maxConcurrent attempts running, or maxPerMinute started in the last minute). Null otherwise.",
  })
  async waitingFor(@Root() execution: ExecutionNode, @Ctx() ctx: Context): Promise<string | null> {
    return whyWaiting({ jobs: scopeOf(ctx).jobLoader, flowWaits: ctx.app.flowWaits }, execution.doc);
  }

  @Authorized('MEMBER')
  @Mutation(() => ExecutionPayload, { description: "A running attempt is aborted (HTTP request aborted, handler's AbortSignal fired)." })
  async cancelExecution(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<ExecutionPayload> {
    const doc = await cancelExecution(jobDeps(ctx), executionObjectId(id), ctx.app.clock());
    return { execution: toExecutionNode(doc) };
  }

  @Authorized('MEMBER')
  @Mutation(() => ExecutionPayload, { description: 'A FAILED or CANCELLED execution is queued again for a fresh round of attempts.' })
  async retryExecution(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<ExecutionPayload> {
    const doc = await retryExecution(jobDeps(ctx), executionObjectId(id), ctx.app.clock());
    return { execution: toExecutionNode(doc) };
  }
}

/** An Execution global id's ObjectId; a malformed id or one of another type is NOT_FOUND, like a missing one. */
function executionObjectId(id: string): ObjectId {
  const parsed = fromGlobalId(id, 'Execution');
  if (!parsed) throw new NotFoundError('Execution', id);
  return parsed.id;
}
