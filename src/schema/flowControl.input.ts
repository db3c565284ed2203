import 'reflect-metadata';
import { Field, InputType, Int } from 'type-graphql';

@InputType('FlowControlInput', {
  description:
    "Limits on the attempts of every job of this tenant that shares the key, across all workers. Give maxConcurrent, maxPerMinute or both. An execution waiting for its key stays QUEUED, holding none of the tenant's running slots, and says why in Execution.waitingFor.",
})
export class FlowControlInput {
  @Field(() => String, {
    nullable: true,
    description:
      "Jobs of this tenant with the same key share its limits (never across tenants). Default: the target URL's origin (scheme, host and port), or `handler:<name>`, following the target when it changes. At most 200 characters; a tenant's jobs may use at most 100 keys.",
  })
  key?: string | null;

  @Field(() => Int, { nullable: true, description: 'Attempts with this key running at once, at most. 1 to 1000.' })
  maxConcurrent?: number | null;

  @Field(() => Int, { nullable: true, description: 'Attempts with this key started in any 60 s, at most. 1 to 60000.' })
  maxPerMinute?: number | null;
}
