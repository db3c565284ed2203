import { Args, Authorized, Ctx, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import type { ObjectId } from 'mongodb';
import type { Context } from './context.type.js';
import { scopeOf } from './auth-checker.js';
import type { ChangeDoc } from '../domain/change.js';
import { hasRole } from '../domain/identity.js';
import { fromGlobalId, toGlobalId } from '../ids/globalId.js';
import { encodeCursor } from '../pagination/cursor.js';
import { parsePageRequest, toConnection } from '../pagination/pageRequest.js';
import { ChangesArgs } from '../schema/change.args.js';
import { Change, ChangeConnection } from '../schema/change.type.js';
import { ConnectionArgs } from '../schema/connection.args.js';
import { Job } from '../schema/job.type.js';
import { toJobNode, type JobNode } from './mappers.js';

const EMPTY_PAGE: ChangeConnection = {
  edges: [],
  pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
};

/** A change page of the caller's tenant, newest first: one job's (`jobId`) or all of them; keyset cursors on (at, id). */
async function listChanges(ctx: Context, args: ConnectionArgsLike, jobId: ObjectId | null): Promise<ChangeConnection> {
  const scope = scopeOf(ctx);
  const page = parsePageRequest(args);
  // The changes of API keys, of the webhook secret and of alert channels are read by ADMINs only, as those objects are.
  const rows = await scope.changes.list({ jobId, withAdminOnly: hasRole(scope.identity.role, 'ADMIN') }, page);
  return toConnection(rows, page, (d) => encodeCursor({ at: d.at, id: d._id }), toChange) as ChangeConnection;
}

type ConnectionArgsLike = Pick<ConnectionArgs, 'first' | 'after' | 'last' | 'before'>;

/** A stored change as the API shows it (its values were redacted before they were stored). */
export function toChange(doc: ChangeDoc): Change {
  return {
    id: toGlobalId('Change', doc._id),
    at: doc.at,
    action: doc.action,
    actor: doc.actor,
    target: { type: doc.targetType, id: doc.targetId },
    jobId: doc.jobId ? toGlobalId('Job', doc.jobId) : null,
    fields: doc.fields.map((f) => ({
      field: f.field,
      before: f.beforeJson === null ? null : (JSON.parse(f.beforeJson) as unknown),
      after: f.afterJson === null ? null : (JSON.parse(f.afterJson) as unknown),
      redacted: f.redacted,
    })),
    details: doc.detailsJson === null ? null : (JSON.parse(doc.detailsJson) as unknown),
  };
}

@Resolver(() => Change)
@Authorized()
export class ChangeResolver {
  @Query(() => ChangeConnection, {
    description:
      "The tenant's change history, newest first: every mutation that changed something, with who and what. Changes of API keys, of the webhook secret and of alert channels are listed to ADMINs only. Kept as long as executions (executionRetentionDays). first/last at most 100; default first 20.",
  })
  async changes(@Args(() => ChangesArgs) args: ChangesArgs, @Ctx() ctx: Context): Promise<ChangeConnection> {
    if (!args.filter?.jobId) return listChanges(ctx, args, null);
    // A malformed id, or another type's, matches nothing; another tenant's job finds no change of this tenant.
    const parsed = fromGlobalId(args.filter.jobId, 'Job');
    return parsed ? listChanges(ctx, args, parsed.id) : EMPTY_PAGE;
  }

  @FieldResolver(() => Job, { nullable: true, description: 'The job the change concerns; null when none, or deleted since (jobId stays).' })
  async job(@Root() change: Change, @Ctx() ctx: Context): Promise<JobNode | null> {
    const parsed = change.jobId ? fromGlobalId(change.jobId, 'Job') : null;
    const doc = parsed && (await scopeOf(ctx).jobLoader.load(parsed.id.toHexString()));
    return doc ? toJobNode(doc) : null;
  }
}

/** Job.changes, beside the Job resolver's fields. */
@Resolver(() => Job)
@Authorized()
export class JobChangesResolver {
  @FieldResolver(() => ChangeConnection, {
    description: "The job's change history, newest first. first/last at most 100; default first 20.",
  })
  async changes(@Root() job: JobNode, @Args(() => ConnectionArgs) args: ConnectionArgs, @Ctx() ctx: Context): Promise<ChangeConnection> {
    return listChanges(ctx, args, job.doc._id);
  }
}
