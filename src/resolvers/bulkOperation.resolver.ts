import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver, Root, Subscription, type SubscribeResolverData } from 'type-graphql';
import type { Context, TenantScope } from './context.type.js';
import { scopeOf } from './auth-checker.js';
import type { BulkOperationDoc, BulkOperationKind } from '../domain/bulkOperation.js';
import { NotFoundError } from '../errors/index.js';
import { watchBulkProgress } from '../executions/bulkProgress.js';
import { startBulkOperation } from '../executions/startBulkOperation.js';
import { fromGlobalId } from '../ids/globalId.js';
import { BulkOperation } from '../schema/bulkOperation.type.js';
import { ExecutionFilter } from '../schema/execution.input.js';
import { executionListFilter } from './listExecutions.js';
import { toBulkOperationNode } from './mappers.js';
import { inTenantScan } from './tenantScan.js';

/** The caller's operation of `id`; null when malformed, of another type, or another tenant's. */
async function findOperation(scope: TenantScope, id: string): Promise<BulkOperationDoc | null> {
  const parsed = fromGlobalId(id, 'BulkOperation');
  return parsed ? scope.bulkOperations.findById(parsed.id) : null;
}

async function start(ctx: Context, kind: BulkOperationKind, filter: ExecutionFilter, operationId: string | null): Promise<BulkOperation> {
  const scope = scopeOf(ctx);
  const listFilter = await executionListFilter(scope.jobs, filter);
  const begin = () =>
    startBulkOperation(
      {
        bulkOperations: scope.bulkOperations,
        executions: scope.executions,
        jobs: scope.jobs,
        changes: scope.changeLog,
        ...ctx.app.operations.bulk,
      },
      kind,
      listFilter,
      operationId,
      ctx.app.clock(),
    );
  // Matching over all the tenant's jobs reads its executions: it takes one of the tenant's scan turns.
  const doc = listFilter?.jobId ? await begin() : await inTenantScan(ctx.app.tenantScans, scope.identity.tenantId, begin);
  return toBulkOperationNode(doc);
}

/** The caller's operation as it progresses (watchBulkProgress), its reads shared by every subscriber to it in this process: one read a period between them. */
async function progressOf({
  args,
  context,
}: SubscribeResolverData<unknown, { id: string }, Context>): Promise<AsyncIterableIterator<BulkOperationDoc>> {
  const scope = scopeOf(context);
  const first = await findOperation(scope, args.id);
  if (!first) throw new NotFoundError('BulkOperation', args.id);
  const key = `${scope.identity.tenantId}/${first._id.toHexString()}`;
  return watchBulkProgress(first, () => context.app.bulkProgressReads.read(key, () => scope.bulkOperations.findById(first._id)));
}

@Resolver(() => BulkOperation)
export class BulkOperationResolver {
  @Authorized()
  @Query(() => BulkOperation, { nullable: true, description: "Null for an id that is not one of the caller's tenant's operations." })
  async bulkOperation(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<BulkOperation | null> {
    const doc = await findOperation(scopeOf(ctx), id);
    return doc ? toBulkOperationNode(doc) : null;
  }

  @Authorized('MEMBER')
  @Mutation(() => BulkOperation, {
    description:
      'Retries, in the background, the FAILED (by default) or CANCELLED executions the filter matches now, at most BULK_MAX_EXECUTIONS; the same operationId again returns the same operation.',
  })
  async retryExecutions(
    @Arg('filter', () => ExecutionFilter) filter: ExecutionFilter,
    @Arg('operationId', () => String, { nullable: true }) operationId: string | null,
    @Ctx() ctx: Context,
  ): Promise<BulkOperation> {
    return start(ctx, 'RETRY', filter, operationId);
  }

  @Authorized('MEMBER')
  @Mutation(() => BulkOperation, {
    description:
      'Cancels, in the background, the waiting and running executions the filter matches now, at most BULK_MAX_EXECUTIONS; the same operationId again returns the same operation.',
  })
  async cancelExecutions(
    @Arg('filter', () => ExecutionFilter) filter: ExecutionFilter,
    @Arg('operationId', () => String, { nullable: true }) operationId: string | null,
    @Ctx() ctx: Context,
  ): Promise<BulkOperation> {
    return start(ctx, 'CANCEL', filter, operationId);
  }

  @Authorized()
  @Subscription(() => BulkOperation, {
    description: 'The operation now, then at each change of its progress (at most every 250 ms), ending with its final state.',
    subscribe: (data: SubscribeResolverData<unknown, { id: string }, Context>) => progressOf(data),
  })
  bulkOperationProgress(@Root() doc: BulkOperationDoc, @Arg('id', () => ID) _id: string): BulkOperation {
    return toBulkOperationNode(doc);
  }
}
