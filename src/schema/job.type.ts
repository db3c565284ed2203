import 'reflect-metadata';
import { Field, ID, Int, ObjectType } from 'type-graphql';
import type {
  JobStatus as JobStatusValue,
  MisfirePolicy as MisfirePolicyValue,
  OverlapPolicy as OverlapPolicyValue,
  Workload as WorkloadValue,
} from '../domain/job.js';
import { JobStatus, MisfirePolicy, OverlapPolicy, Workload } from './enums.js';
import type { JobListFilter } from '../store/jobStore.js';
import { Node } from './node.type.js';
import { PageInfo } from './pageInfo.type.js';
import { Exclusion } from './exclusion.type.js';
import { FlowControl } from './flowControl.type.js';
import { RetryPolicy } from './retryPolicy.type.js';
import { DateTimeScalar, JSONScalar } from './scalars.js';
import { Schedule } from './schedule.type.js';
import { JobTarget } from './target.type.js';
import { Label } from './label.type.js';

/**
 * A job. `executions(...)` is not declared here: the Job resolver adds it with @FieldResolver.
 * Set `__typename: 'Job'` on values returned where a Node is expected.
 */
@ObjectType('Job', { implements: Node })
export class Job implements Node {
  /** Not a GraphQL field: lets Node.resolveType pick this type. */
  declare __typename?: 'Job';

  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => Schedule)
  schedule!: Schedule;

  @Field(() => JobTarget)
  target!: JobTarget;

  @Field(() => JSONScalar, { nullable: true })
  payload?: unknown;

  @Field(() => Workload)
  workload!: WorkloadValue;

  @Field(() => Int, { description: 'Per-attempt timeout. Default 60.' })
  timeoutSeconds!: number;

  @Field(() => RetryPolicy)
  retryPolicy!: RetryPolicy;

  @Field(() => OverlapPolicy, { description: 'Default ALLOW.' })
  overlapPolicy!: OverlapPolicyValue;

  @Field(() => MisfirePolicy, { description: 'Default RUN_ONCE.' })
  misfirePolicy!: MisfirePolicyValue;

  @Field(() => FlowControl, { nullable: true, description: 'Null: the job has none.' })
  flowControl?: FlowControl | null;

  @Field(() => [Exclusion], { description: 'When the job does not run (see ExclusionInput); empty when none.' })
  exclusions!: Exclusion[];

  @Field(() => [Label], { description: 'Sorted by key; empty when the job has none.' })
  labels!: Label[];

  @Field(() => String, { nullable: true, description: "Your own id for the job, unique among this tenant's jobs; null: none." })
  externalId?: string | null;

  @Field(() => JobStatus)
  status!: JobStatusValue;

  @Field(() => DateTimeScalar, {
    nullable: true,
    description:
      'When the next occurrence that has not started yet is due (materialised or not): its nominal time, which jitterSeconds may delay. Null when the job is paused or has no occurrence left.',
  })
  nextRunAt?: Date | null;

  @Field(() => DateTimeScalar, { nullable: true })
  lastRunAt?: Date | null;

  @Field(() => DateTimeScalar)
  createdAt!: Date;

  @Field(() => DateTimeScalar)
  updatedAt!: Date;
}

@ObjectType('JobEdge')
export class JobEdge {
  @Field(() => String)
  cursor!: string;

  @Field(() => Job)
  node!: Job;
}

/**
 * A page of jobs. `totalCount` is not declared here: JobConnectionResolver counts only when a client
 * selects it (a count reads every matching job on FerretDB), from the `filter` the page was read with.
 */
@ObjectType('JobConnection')
export class JobConnection {
  @Field(() => [JobEdge])
  edges!: JobEdge[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;

  /** Not a GraphQL field: what totalCount counts. */
  filter!: JobListFilter;
}
