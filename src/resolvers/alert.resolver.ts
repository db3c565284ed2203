import { BSON } from 'mongodb';
import {
  Arg,
  Args,
  ArgsType,
  Authorized,
  Ctx,
  Field,
  ID,
  Mutation,
  Query,
  Resolver,
  Root,
  Subscription,
  type SubscribeResolverData,
} from 'type-graphql';
import type { AlertDoc } from '../domain/alert.js';
import type { AlertEventMessage } from '../events/alertEventBus.js';
import type { Context } from './context.type.js';
import { scopeOf } from './auth-checker.js';
import {
  createAlertChannel,
  createAlertRule,
  deleteAlertChannel,
  deleteAlertRule,
  type AlertSettingsDeps,
} from '../alerts/alertSettings.js';
import { NotFoundError } from '../errors/index.js';
import { fromGlobalId } from '../ids/globalId.js';
import { encodeCursor } from '../pagination/cursor.js';
import { parsePageRequest, toConnection } from '../pagination/pageRequest.js';
import { Alert, AlertChannel, AlertConnection, AlertRule } from '../schema/alert.type.js';
import { CreateAlertChannelInput, CreateAlertRuleInput } from '../schema/alert.input.js';
import { ConnectionArgs } from '../schema/connection.args.js';
import { toAlert, toAlertChannel, toAlertRule } from './alertMappers.js';

/** Arguments of Query.alerts. */
@ArgsType()
class AlertsArgs extends ConnectionArgs {
  @Field(() => ID, { nullable: true, description: "One job's alerts only." })
  jobId?: string | null;
}

/** The caller's tenant's alerts as they are raised, narrowed to one job when `jobId` is given. */
async function alertsRaised({
  args,
  context,
}: SubscribeResolverData<unknown, { jobId?: string | null }, Context>): Promise<AsyncIterableIterator<AlertEventMessage>> {
  const stream = await scopeOf(context).alertEvents.stream();
  if (!args.jobId) return stream;
  // A malformed job id matches nothing, like an id that does not exist.
  const job = fromGlobalId(args.jobId, 'Job')?.id.toHexString() ?? 'none';
  const iterator: AsyncIterableIterator<AlertEventMessage> = {
    next: async () => {
      for (;;) {
        const result = await stream.next();
        if (result.done || (BSON.EJSON.parse(result.value.alert) as AlertDoc).jobId.toHexString() === job) return result;
      }
    },
    return: () => stream.return!(),
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

/** Alert channels (ADMIN: their URLs may hold a receiver's credentials), rules and the alerts raised. */
/** The caller's alert settings and change log. */
function settingsDeps(ctx: Context): AlertSettingsDeps {
  const scope = scopeOf(ctx);
  return { settings: scope.alertSettings, changes: scope.changeLog };
}

@Resolver(() => Alert)
export class AlertResolver {
  @Authorized('ADMIN')
  @Query(() => [AlertChannel], { description: "ADMIN only. The tenant's alert channels, newest first." })
  async alertChannels(@Ctx() ctx: Context): Promise<AlertChannel[]> {
    return (await scopeOf(ctx).alertSettings.channels()).map(toAlertChannel);
  }

  @Authorized()
  @Query(() => [AlertRule], { description: "The tenant's alert rules, newest first." })
  async alertRules(@Ctx() ctx: Context): Promise<AlertRule[]> {
    return (await scopeOf(ctx).alertSettings.rules()).map(toAlertRule);
  }

  @Authorized()
  @Query(() => AlertConnection, {
    description: 'Alerts raised, newest first (raisedAt descending); first/last at most 100; default first 20.',
  })
  async alerts(@Args(() => AlertsArgs) args: AlertsArgs, @Ctx() ctx: Context): Promise<AlertConnection> {
    const page = parsePageRequest(args);
    const job = args.jobId ? fromGlobalId(args.jobId, 'Job') : null;
    // A malformed job id matches nothing, like an id that does not exist.
    const rows = args.jobId && !job ? [] : await scopeOf(ctx).alerts.list({ jobId: job?.id ?? null }, page);
    return toConnection(rows, page, (d) => encodeCursor({ at: d.raisedAt, id: d._id }), toAlert) as AlertConnection;
  }

  @Authorized('ADMIN')
  @Mutation(() => AlertChannel, { description: 'ADMIN only. Adds a channel alerts can be sent to (at most 20 a tenant).' })
  async createAlertChannel(
    @Arg('input', () => CreateAlertChannelInput) input: CreateAlertChannelInput,
    @Ctx() ctx: Context,
  ): Promise<AlertChannel> {
    // As for an HTTP target: a private IP literal only with ALLOW_PRIVATE_TARGETS.
    const allowPrivate = ctx.app.operations.allowPrivateTargets;
    return toAlertChannel(await createAlertChannel(settingsDeps(ctx), input, ctx.app.clock(), allowPrivate));
  }

  @Authorized('ADMIN')
  @Mutation(() => AlertChannel, { description: 'ADMIN only. Deletes a channel and the rules that use it.' })
  async deleteAlertChannel(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<AlertChannel> {
    const parsed = fromGlobalId(id, 'AlertChannel');
    const deleted = parsed && (await deleteAlertChannel(settingsDeps(ctx), parsed.id, ctx.app.clock()));
    if (!deleted) throw new NotFoundError('AlertChannel', id);
    return toAlertChannel(deleted);
  }

  @Authorized('MEMBER')
  @Mutation(() => AlertRule, {
    description:
      'MEMBER or ADMIN. Adds an alert rule (at most 100 a tenant); processes apply it within ALERT_RULES_CACHE_MS (default 10 s).',
  })
  async createAlertRule(@Arg('input', () => CreateAlertRuleInput) input: CreateAlertRuleInput, @Ctx() ctx: Context): Promise<AlertRule> {
    const scope = scopeOf(ctx);
    const rule = await createAlertRule(
      { ...settingsDeps(ctx), jobs: scope.jobs },
      {
        channelId: fromGlobalId(input.channelId, 'AlertChannel')?.id ?? null,
        jobId: input.jobId ? (fromGlobalId(input.jobId, 'Job')?.id ?? null) : undefined,
        kind: input.kind,
        threshold: input.threshold,
      },
      input,
      ctx.app.clock(),
    );
    return toAlertRule(rule);
  }

  @Authorized()
  @Subscription(() => Alert, {
    description:
      "Each alert as it is raised in the caller's tenant (the record as raised: its delivery PENDING or RATE_LIMITED), optionally one job's.",
    subscribe: (data: SubscribeResolverData<unknown, { jobId?: string | null }, Context>) => alertsRaised(data),
  })
  alertRaised(@Root() message: AlertEventMessage, @Arg('jobId', () => ID, { nullable: true }) _jobId: string | null): Alert {
    return toAlert(BSON.EJSON.parse(message.alert) as AlertDoc);
  }

  @Authorized('MEMBER')
  @Mutation(() => AlertRule, { description: 'MEMBER or ADMIN. Deletes an alert rule.' })
  async deleteAlertRule(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<AlertRule> {
    const parsed = fromGlobalId(id, 'AlertRule');
    const deleted = parsed && (await deleteAlertRule(settingsDeps(ctx), parsed.id, ctx.app.clock()));
    if (!deleted) throw new NotFoundError('AlertRule', id);
    return toAlertRule(deleted);
  }
}
