import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { graphql, parse, printSchema, subscribe, type ExecutionResult, type GraphQLSchema } from 'graphql';
import {
  Arg,
  Args,
  buildSchema,
  FieldResolver,
  ID,
  Int,
  Mutation,
  type PubSub,
  Query,
  Resolver,
  Root,
  Subscription,
} from 'type-graphql';
import { ApiKey, ApiKeyPayload, WebhookSecretPayload } from '../../src/schema/apiKey.type.js';
import { ExecutionsArgs, JobsArgs } from '../../src/schema/connection.args.js';
import { ExecutionStatus, JobStatus, Role, Workload } from '../../src/schema/enums.js';
import {
  Execution,
  ExecutionConnection,
  ExecutionEvent,
  ExecutionStats,
  ScheduledTime,
} from '../../src/schema/execution.type.js';
import { CreateJobInput, UpdateJobInput } from '../../src/schema/job.input.js';
import { Job, JobConnection } from '../../src/schema/job.type.js';
import { Node } from '../../src/schema/node.type.js';
import { DeleteJobPayload, ExecutionPayload, JobPayload } from '../../src/schema/payload.type.js';
import { DateTimeScalar, JSONScalar, parseIsoDateTime } from '../../src/schema/scalars.js';
import { ScheduleInput } from '../../src/schema/schedule.input.js';
import { resolveJobTargetType } from '../../src/schema/target.type.js';
import { Viewer } from '../../src/schema/viewer.type.js';
import { contractDiff } from '../support/contractDiff.js';

const contract = readFileSync(path.resolve(process.cwd(), '../shared/api/schema.graphql'), 'utf8');

const notImplemented = (): never => {
  throw new Error('not implemented in the throwaway resolver');
};

const sampleJob = (): Job => ({
  id: 'job-1',
  name: 'nightly',
  description: null,
  schedule: { kind: 'CRON', cron: '0 3 * * *', timezone: 'UTC', jitterSeconds: 0 },
  // the domain's shape: no __typename, resolved by `kind`/`url`
  target: { kind: 'HTTP', url: 'https://example.com/hook', method: 'POST', headers: [] } as Job['target'],
  payload: { a: [1, 'two', null] },
  workload: 'IO_BOUND',
  timeoutSeconds: 60,
  retryPolicy: { maxAttempts: 3, initialBackoffSeconds: 1, maxBackoffSeconds: 300, backoffMultiplier: 2 },
  overlapPolicy: 'ALLOW',
  misfirePolicy: 'RUN_ONCE',
  status: JobStatus.ACTIVE,
  nextRunAt: new Date(Date.UTC(2024, 4, 1, 3, 0, 0)),
  lastRunAt: null,
  createdAt: new Date(Date.UTC(2024, 0, 1)),
  updatedAt: new Date(Date.UTC(2024, 0, 2)),
});

const sampleExecution = (): Execution => ({
  id: 'exec-1',
  jobId: 'job-1',
  status: 'RUNNING',
  trigger: 'MANUAL',
  scheduledFor: new Date(Date.UTC(2024, 4, 1, 3, 0, 0, 5)),
  attempt: 1,
  maxAttempts: 3,
  attempts: [{ number: 1, startedAt: new Date(Date.UTC(2024, 4, 1, 3, 0, 1)), outcome: null, workerId: 'w1' }],
  result: null,
  createdAt: new Date(Date.UTC(2024, 4, 1)),
  updatedAt: new Date(Date.UTC(2024, 4, 1)),
});

let lastCreateJobInput: CreateJobInput | undefined;

/** Throwaway root resolvers: one field per contract operation, so the types can be checked against the contract. */
@Resolver()
class ThrowawayRootResolver {
  @Query(() => Viewer)
  viewer(): Viewer {
    return notImplemented();
  }

  @Query(() => Node, { nullable: true })
  node(@Arg('id', () => ID) id: string): Node | null {
    if (id === 'job-1') return { ...sampleJob(), __typename: 'Job' } as Job;
    if (id === 'exec-1') return { ...sampleExecution(), __typename: 'Execution' } as Execution;
    return null;
  }

  @Query(() => Job, { nullable: true })
  job(@Arg('id', () => ID) id: string): Job | null {
    return id === 'job-1' ? sampleJob() : null;
  }

  @Query(() => JobConnection, {
    description: 'Newest first (createdAt descending). first/last at most 100; default first 20.',
  })
  jobs(@Args(() => JobsArgs) _args: JobsArgs): JobConnection {
    return notImplemented();
  }

  @Query(() => Execution, { nullable: true })
  execution(@Arg('id', () => ID) _id: string): Execution | null {
    return notImplemented();
  }

  @Query(() => ExecutionConnection, {
    description:
      'Newest first (scheduledFor descending). Reads the executions collection; first/last at most 100; default first 20.',
  })
  executions(@Args(() => ExecutionsArgs) _args: ExecutionsArgs): ExecutionConnection {
    return notImplemented();
  }

  @Query(() => ExecutionStats, { description: 'Counts over executions scheduled in [since, until).' })
  executionStats(
    @Arg('since', () => DateTimeScalar) since: Date,
    @Arg('until', () => DateTimeScalar, { nullable: true }) until: Date | null | undefined,
    @Arg('jobId', () => ID, { nullable: true }) _jobId: string | null | undefined,
  ): ExecutionStats {
    // echoes the parsed instants so the DateTime parsing can be observed
    return {
      total: (since.getTime() - Date.UTC(2024, 4, 1)) / 1000,
      byStatus: [{ status: 'QUEUED', count: until ? until.getTime() - since.getTime() : -1 }],
      startLagMsP50: null,
    };
  }

  @Query(() => [ApiKey], { description: 'ADMIN only.' })
  apiKeys(): ApiKey[] {
    return notImplemented();
  }

  @Query(() => [ScheduledTime], {
    description:
      'The next occurrences a schedule would have from now (or from its startAt), without creating anything. count default 5, at most 100. Invalid schedules are BAD_USER_INPUT with the reason.',
  })
  previewSchedule(
    @Arg('schedule', () => ScheduleInput) _schedule: ScheduleInput,
    @Arg('count', () => Int, { nullable: true }) _count: number | null | undefined,
  ): ScheduledTime[] {
    return notImplemented();
  }

  @Mutation(() => JobPayload, { description: 'MEMBER or ADMIN.' })
  createJob(@Arg('input', () => CreateJobInput) input: CreateJobInput): JobPayload {
    lastCreateJobInput = input;
    // echoes the input so the input conversion can be observed
    return { job: { ...sampleJob(), name: input.name, payload: input.payload, workload: input.workload ?? 'IO_BOUND' } };
  }

  @Mutation(() => JobPayload)
  updateJob(@Arg('input', () => UpdateJobInput) _input: UpdateJobInput): JobPayload {
    return notImplemented();
  }

  @Mutation(() => JobPayload)
  pauseJob(@Arg('id', () => ID) _id: string): JobPayload {
    return notImplemented();
  }

  @Mutation(() => JobPayload)
  resumeJob(@Arg('id', () => ID) _id: string): JobPayload {
    return notImplemented();
  }

  @Mutation(() => DeleteJobPayload, {
    description: 'Cancels its SCHEDULED, QUEUED and RETRYING executions; keeps the history.',
  })
  deleteJob(@Arg('id', () => ID) _id: string): DeleteJobPayload {
    return notImplemented();
  }

  @Mutation(() => ExecutionPayload, {
    description: "Run now, outside the schedule. payload overrides the job's payload for this execution.",
  })
  triggerJob(
    @Arg('id', () => ID) _id: string,
    @Arg('payload', () => JSONScalar, { nullable: true }) _payload: unknown,
  ): ExecutionPayload {
    return notImplemented();
  }

  @Mutation(() => ExecutionPayload, {
    description: "A running attempt is aborted (HTTP request aborted, handler's AbortSignal fired).",
  })
  cancelExecution(@Arg('id', () => ID) _id: string): ExecutionPayload {
    return notImplemented();
  }

  @Mutation(() => ExecutionPayload, {
    description: 'A FAILED or CANCELLED execution is queued again for a fresh round of attempts.',
  })
  retryExecution(@Arg('id', () => ID) _id: string): ExecutionPayload {
    return notImplemented();
  }

  @Mutation(() => ApiKeyPayload, { description: 'ADMIN only.' })
  createApiKey(@Arg('name', () => String) _name: string, @Arg('role', () => Role) _role: Role): ApiKeyPayload {
    return notImplemented();
  }

  @Mutation(() => ApiKey, { description: 'ADMIN only.' })
  revokeApiKey(@Arg('id', () => ID) _id: string): ApiKey {
    return notImplemented();
  }

  @Mutation(() => WebhookSecretPayload, { description: "ADMIN only. Replaces the tenant's webhook signing secret." })
  rotateWebhookSecret(): WebhookSecretPayload {
    return notImplemented();
  }

  @Subscription(() => ExecutionEvent, {
    description:
      "Every status change of the caller's tenant's executions, optionally narrowed. Events of one execution arrive in order.",
    subscribe: async function* () {
      yield {
        execution: sampleExecution(),
        previousStatus: 'QUEUED',
        status: 'RUNNING',
        occurredAt: new Date(Date.UTC(2024, 4, 1, 3, 0, 1)),
      } satisfies ExecutionEvent;
    },
  })
  executionUpdated(
    @Root() event: ExecutionEvent,
    @Arg('jobId', () => ID, { nullable: true }) _jobId: string | null | undefined,
    @Arg('statuses', () => [ExecutionStatus], { nullable: true }) _statuses: ExecutionStatus[] | null | undefined,
  ): ExecutionEvent {
    return event;
  }
}

@Resolver(() => Job)
class ThrowawayJobResolver {
  @FieldResolver(() => ExecutionConnection, { description: 'Newest first (scheduledFor descending).' })
  executions(@Root() _job: Job, @Args(() => ExecutionsArgs) _args: ExecutionsArgs): ExecutionConnection {
    return notImplemented();
  }
}

@Resolver(() => Execution)
class ThrowawayExecutionResolver {
  @FieldResolver(() => Job, { nullable: true, description: 'Null when the job has been deleted since.' })
  job(@Root() execution: Execution): Job | null {
    return execution.jobId === 'job-1' ? sampleJob() : null;
  }
}

/**
 * type-graphql 2.0.0-rc.4 refuses to build a schema with any @Subscription unless `pubSub` is given,
 * even when every subscription has its own `subscribe` function (then pubSub is never used).
 */
const unusedPubSub: PubSub = {
  publish: () => undefined,
  subscribe: () => {
    throw new Error('subscriptions use their own subscribe function; pubSub is unused');
  },
};

let built: GraphQLSchema | undefined;
async function schema(): Promise<GraphQLSchema> {
  built ??= await buildSchema({
    resolvers: [ThrowawayRootResolver, ThrowawayJobResolver, ThrowawayExecutionResolver],
    pubSub: unusedPubSub,
    validate: false,
  });
  return built;
}

async function run(source: string, variableValues?: Record<string, unknown>): Promise<ExecutionResult> {
  return graphql({ schema: await schema(), source, variableValues });
}

describe('schema types', () => {
  it('express the whole contract', async () => {
    const printed = printSchema(await schema());
    expect(contractDiff(contract, printed)).toEqual([]);
  });

  it('carry every description of the contract', async () => {
    const printed = printSchema(await schema());
    expect(contractDiff(contract, printed, { descriptions: true })).toEqual([]);
  });

  it('resolve Node by __typename and JobTarget by shape, and serialise DateTime and JSON', async () => {
    const result = await run(`{
      job: node(id: "job-1") { __typename id ... on Job { name nextRunAt lastRunAt payload status
        target { __typename ... on HttpTarget { url method headers { name } } } } }
      execution: node(id: "exec-1") { __typename ... on Execution { scheduledFor job { id } attempts { number outcome } } }
      missing: node(id: "nope") { id }
    }`);
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      job: {
        __typename: 'Job',
        id: 'job-1',
        name: 'nightly',
        nextRunAt: '2024-05-01T03:00:00.000Z',
        lastRunAt: null,
        payload: { a: [1, 'two', null] },
        status: 'ACTIVE',
        target: { __typename: 'HttpTarget', url: 'https://example.com/hook', method: 'POST', headers: [] },
      },
      execution: {
        __typename: 'Execution',
        scheduledFor: '2024-05-01T03:00:00.005Z',
        job: { id: 'job-1' },
        attempts: [{ number: 1, outcome: null }],
      },
      missing: null,
    });
  });

  it('resolve JobTarget members from __typename or the domain shape', () => {
    expect(resolveJobTargetType({ kind: 'HANDLER', handler: 'noop' })).toBe('HandlerTarget');
    expect(resolveJobTargetType({ handler: 'sleep' })).toBe('HandlerTarget');
    expect(resolveJobTargetType({ __typename: 'HandlerTarget', handler: 'x' })).toBe('HandlerTarget');
    expect(resolveJobTargetType({ url: 'http://x', method: 'GET', headers: [] })).toBe('HttpTarget');
    expect(() => resolveJobTargetType({})).toThrow(/JobTarget/);
  });

  it('reject a Node without __typename with a clear error', async () => {
    @Resolver()
    class Untagged {
      @Query(() => Node, { nullable: true })
      untagged(): Node {
        return { id: 'x' };
      }
    }
    const s = await buildSchema({ resolvers: [Untagged], validate: false });
    const result = await graphql({ schema: s, source: '{ untagged { id } }' });
    expect(result.errors?.[0]?.message).toMatch(/__typename/);
  });

  it('convert inputs: JSON payload, enum values as their names, omitted fields absent', async () => {
    const result = await run(
      `mutation($input: CreateJobInput!) { createJob(input: $input) { job { name payload workload } } }`,
      {
        input: {
          name: 'n',
          schedule: { intervalSeconds: 60 },
          target: { handler: 'noop' },
          payload: { nested: { $where: 'x', 'a.b': true } },
          workload: 'CPU_BOUND',
        },
      },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      createJob: { job: { name: 'n', payload: { nested: { $where: 'x', 'a.b': true } }, workload: Workload.CPU_BOUND } },
    });
    const input = lastCreateJobInput;
    expect(input).toBeInstanceOf(CreateJobInput);
    expect(input?.schedule).toBeInstanceOf(ScheduleInput);
    expect(input?.schedule).toEqual({ intervalSeconds: 60 });
    expect(Object.keys(input ?? {}).sort()).toEqual(['name', 'payload', 'schedule', 'target', 'workload']);
    expect(input?.target).toEqual({ handler: 'noop' });
  });

  it('parse DateTime arguments with an offset or Z, as variables and literals', async () => {
    const result = await run(
      `query($since: DateTime!) { executionStats(since: $since, until: "2024-05-01T14:00:01.5+02:00") { total byStatus { count } } }`,
      { since: '2024-05-01T12:00:00Z' },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      executionStats: { total: 12 * 3600, byStatus: [{ count: 1500 }] },
    });
  });

  it('reject DateTime values without an explicit offset with a clear message', async () => {
    const noOffset = await run(`query($since: DateTime!) { executionStats(since: $since) { total } }`, {
      since: '2024-05-01T12:00:00',
    });
    expect(noOffset.errors?.[0]?.message).toMatch(/explicit (UTC )?offset/);
    const literal = await run(`{ executionStats(since: "2024-05-01") { total } }`);
    expect(literal.errors?.[0]?.message).toMatch(/DateTime cannot represent "2024-05-01"/);
    const notString = await run(`{ executionStats(since: 1714564800000) { total } }`);
    expect(notString.errors?.[0]?.message).toMatch(/DateTime must be a string/);
  });

  it('stream subscription events through the subscribe function (pubSub unused)', async () => {
    const iterator = await subscribe({
      schema: await schema(),
      document: parse(`subscription { executionUpdated(jobId: "job-1") { previousStatus status occurredAt execution { id } } }`),
    });
    if (!(Symbol.asyncIterator in iterator)) throw new Error(JSON.stringify(iterator.errors));
    const first = await iterator[Symbol.asyncIterator]().next();
    expect(first.value).toEqual({
      data: {
        executionUpdated: {
          previousStatus: 'QUEUED',
          status: 'RUNNING',
          occurredAt: '2024-05-01T03:00:01.000Z',
          execution: { id: 'exec-1' },
        },
      },
    });
  });
});

describe('DateTime scalar', () => {
  it('serialises Dates as toISOString()', () => {
    const d = new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 7));
    expect(DateTimeScalar.serialize(d)).toBe('2024-02-29T23:59:59.007Z');
    expect(DateTimeScalar.serialize('2024-02-29T23:59:59+01:00')).toBe('2024-02-29T22:59:59.000Z');
    expect(() => DateTimeScalar.serialize(new Date(NaN))).toThrow(/invalid Date/);
    expect(() => DateTimeScalar.serialize({})).toThrow(/DateTime cannot represent/);
  });

  it.each([
    ['2024-05-01T12:00:00Z', '2024-05-01T12:00:00.000Z'],
    ['2024-05-01T12:00:00.123Z', '2024-05-01T12:00:00.123Z'],
    ['2024-05-01T12:00:00.123456z', '2024-05-01T12:00:00.123Z'],
    ['2024-05-01t12:00Z', '2024-05-01T12:00:00.000Z'],
    ['2024-05-01T14:30:00+02:30', '2024-05-01T12:00:00.000Z'],
    ['2024-05-01T07:00:00-0500', '2024-05-01T12:00:00.000Z'],
    ['2024-05-01T00:00:00-05', '2024-05-01T05:00:00.000Z'],
    ['2024-12-31T23:30:00-01:00', '2025-01-01T00:30:00.000Z'],
    ['0050-01-01T00:00:00Z', '0050-01-01T00:00:00.000Z'],
  ])('parses %s', (input, expected) => {
    expect(parseIsoDateTime(input).toISOString()).toBe(expected);
    expect((DateTimeScalar.parseValue(input) as Date).toISOString()).toBe(expected);
  });

  it.each([
    '2024-05-01T12:00:00',
    '2024-05-01',
    '2024-05-01 12:00:00Z',
    'May 1, 2024 12:00 UTC',
    '2024-13-01T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '2024-05-01T24:00:00Z',
    '2024-05-01T12:60:00Z',
    '2024-05-01T12:00:00+25:00',
    ' 2024-05-01T12:00:00Z',
    '',
  ])('rejects %j', (input) => {
    expect(() => DateTimeScalar.parseValue(input)).toThrow(/DateTime cannot represent/);
  });

  it('rejects non-strings', () => {
    expect(() => DateTimeScalar.parseValue(1714564800000)).toThrow(/expected a string, got number/);
    expect(() => DateTimeScalar.parseValue(new Date())).toThrow(/expected a string/);
  });
});

describe('JSON scalar', () => {
  it('is named JSON with the contract description and passes values through', () => {
    expect(JSONScalar.name).toBe('JSON');
    expect(JSONScalar.description).toBe('Any JSON value.');
    expect(JSONScalar.parseValue({ a: [1] })).toEqual({ a: [1] });
    expect(JSONScalar.serialize('x')).toBe('x');
  });
});
