import { Arg, Authorized, Ctx, ID, Query, Resolver } from 'type-graphql';
import type { Context } from './context.type.js';
import { scopeOf } from './auth-checker.js';
import { fromGlobalId } from '../ids/globalId.js';
import { Node } from '../schema/node.type.js';
import { toBulkOperationNode, toExecutionNode, toJobNode } from './mappers.js';

@Resolver()
export class NodeResolver {
  @Authorized()
  @Query(() => Node, { nullable: true })
  async node(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<Node | null> {
    const scope = scopeOf(ctx);
    const parsed = fromGlobalId(id);
    if (parsed?.type === 'Job') {
      const doc = await scope.jobs.findById(parsed.id);
      return doc ? toJobNode(doc) : null;
    }
    if (parsed?.type === 'Execution') {
      const doc = await scope.executions.findById(parsed.id);
      return doc ? toExecutionNode(doc) : null;
    }
    if (parsed?.type === 'BulkOperation') {
      const doc = await scope.bulkOperations.findById(parsed.id);
      return doc ? toBulkOperationNode(doc) : null;
    }
    return null;
  }
}
