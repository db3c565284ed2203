import 'reflect-metadata';
import { ArgsType, Field, Int } from 'type-graphql';
import { ExecutionFilter } from './execution.input.js';
import { JobFilter } from './job.input.js';

/** Relay connection arguments: `first`/`after` page forwards, `last`/`before` backwards. */
@ArgsType()
export class ConnectionArgs {
  @Field(() => Int, { nullable: true })
  first?: number | null;

  @Field(() => String, { nullable: true })
  after?: string | null;

  @Field(() => Int, { nullable: true })
  last?: number | null;

  @Field(() => String, { nullable: true })
  before?: string | null;
}

/** Arguments of Query.jobs. */
@ArgsType()
export class JobsArgs extends ConnectionArgs {
  @Field(() => JobFilter, { nullable: true })
  filter?: JobFilter | null;
}

/** Arguments of Query.executions and Job.executions. */
@ArgsType()
export class ExecutionsArgs extends ConnectionArgs {
  // Here rather than on the fields, whose descriptions are the shared contract's word for word.
  @Field(() => ExecutionFilter, {
    nullable: true,
    description:
      'Occurrences not started yet are listed first (they are scheduled latest). History first: { phase: HISTORY }; ' +
      'the N soonest upcoming occurrences: { phase: UPCOMING } with last: N (still listed newest first).',
  })
  filter?: ExecutionFilter | null;
}
