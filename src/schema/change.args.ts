import 'reflect-metadata';
import { ArgsType, Field, ID, InputType } from 'type-graphql';
import { ConnectionArgs } from './connection.args.js';

@InputType('ChangeFilter')
export class ChangeFilter {
  @Field(() => ID, { nullable: true, description: "One job's changes, also after the job was deleted." })
  jobId?: string | null;
}

/** Arguments of Query.changes. */
@ArgsType()
export class ChangesArgs extends ConnectionArgs {
  @Field(() => ChangeFilter, { nullable: true })
  filter?: ChangeFilter | null;
}
