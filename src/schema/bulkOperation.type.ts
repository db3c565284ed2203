import 'reflect-metadata';
import { Field, ID, Int, ObjectType } from 'type-graphql';
import type {
  BulkOperationKind as BulkOperationKindValue,
  BulkOperationStatus as BulkOperationStatusValue,
} from '../domain/bulkOperation.js';
import { BulkOperationKind, BulkOperationStatus } from './enums.js';
import { Node } from './node.type.js';
import { DateTimeScalar } from './scalars.js';

@ObjectType('BulkOperationError', { description: 'An execution a bulk operation could not retry or cancel, and why.' })
export class BulkOperationError {
  @Field(() => ID)
  executionId!: string;

  @Field(() => String)
  message!: string;
}

/**
 * A bulk retry or cancel over the executions a filter matched when it was created. Set
 * `__typename: 'BulkOperation'` on values returned where a Node is expected.
 */
@ObjectType('BulkOperation', {
  implements: Node,
  description:
    'A retry or cancel of the executions a filter matched when it was created, run in the background at a bounded pace; resumed by another api process after a crash.',
})
export class BulkOperation implements Node {
  /** Not a GraphQL field: lets Node.resolveType pick this type. */
  declare __typename?: 'BulkOperation';

  @Field(() => ID)
  id!: string;

  @Field(() => String, { description: "The client's idempotency key; `auto:<id>` when none was given." })
  operationId!: string;

  @Field(() => BulkOperationKind)
  kind!: BulkOperationKindValue;

  @Field(() => BulkOperationStatus)
  status!: BulkOperationStatusValue;

  @Field(() => String, { nullable: true, description: 'Why it FAILED.' })
  reason?: string | null;

  @Field(() => Int, { description: 'The executions matched when it was created.' })
  total!: number;

  @Field(() => Int, { description: 'Executions retried (queued again) or cancelled so far.' })
  done!: number;

  @Field(() => Int, { description: 'Executions that could not be retried or cancelled (they had changed, ended or been deleted).' })
  failed!: number;

  @Field(() => [BulkOperationError], { description: 'The latest item errors, at most 10; `failed` counts them all.' })
  errors!: BulkOperationError[];

  @Field(() => DateTimeScalar)
  createdAt!: Date;

  @Field(() => DateTimeScalar, { nullable: true })
  finishedAt?: Date | null;
}
