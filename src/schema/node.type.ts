import 'reflect-metadata';
import { Field, ID, InterfaceType } from 'type-graphql';

/** The names of the object types that implement Node; `node(id)` resolves these. */
export type NodeTypename = 'Job' | 'Execution' | 'BulkOperation';

/**
 * Relay's Node interface. Objects returned where a Node is expected (Query.node) must carry
 * `__typename: 'Job' | 'Execution' | 'BulkOperation'` so the concrete type can be resolved.
 */
@InterfaceType('Node', {
  resolveType: (value: unknown): string => {
    const typename = value !== null && typeof value === 'object' ? (value as { __typename?: unknown }).__typename : undefined;
    if (typeof typename !== 'string' || typename.length === 0) {
      throw new Error('Node value has no __typename; resolvers returning a Node must set __typename (e.g. "Job").');
    }
    return typename;
  },
})
export abstract class Node {
  @Field(() => ID)
  id!: string;
}
