import 'reflect-metadata';
import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import {
  ALERT_CHANNEL_FORMATS,
  ALERT_DELIVERY_STATUSES,
  ALERT_RULE_KINDS,
  ALERT_STATES,
  type AlertChannelFormat as AlertChannelFormatValue,
  type AlertDeliveryStatus as AlertDeliveryStatusValue,
  type AlertRuleKind as AlertRuleKindValue,
  type AlertState as AlertStateValue,
} from '../domain/alert.js';
import { enumOf } from './enums.js';
import { PageInfo } from './pageInfo.type.js';
import { DateTimeScalar } from './scalars.js';

export const AlertRuleKind = enumOf(ALERT_RULE_KINDS);
registerEnumType(AlertRuleKind, {
  name: 'AlertRuleKind',
  description:
    'CONSECUTIVE_FAILURES: after `threshold` failed executions in a row (then once more when the job succeeds again: RECOVERED); SKIPPED: an occurrence skipped (misfire, budget, overlap); OVERDUE: an occurrence not started `threshold` seconds after it was due.',
});
export const AlertState = enumOf(ALERT_STATES);
registerEnumType(AlertState, { name: 'AlertState', description: 'The change of state an alert announces.' });
export const AlertChannelFormat = enumOf(ALERT_CHANNEL_FORMATS);
registerEnumType(AlertChannelFormat, {
  name: 'AlertChannelFormat',
  description: "KAIROS: Kairos' JSON body; SLACK: a Slack-compatible incoming-webhook body ({ text }). Both are signed like deliveries.",
});
export const AlertDeliveryStatus = enumOf(ALERT_DELIVERY_STATUSES);
registerEnumType(AlertDeliveryStatus, {
  name: 'AlertDeliveryStatus',
  description:
    "PENDING: on its way or retrying; DELIVERED: the channel answered 2xx; FAILED: every attempt failed; RATE_LIMITED: past the tenant's alert rate, recorded but not sent.",
});

@ObjectType('AlertChannel', { description: "Where alerts are POSTed, signed with the tenant's webhook secret like deliveries." })
export class AlertChannel {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String)
  url!: string;

  @Field(() => AlertChannelFormat)
  format!: AlertChannelFormatValue;

  @Field(() => DateTimeScalar)
  createdAt!: Date;
}

@ObjectType('AlertRule', { description: 'What to watch, for one job or every job of the tenant, and which channel to tell.' })
export class AlertRule {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  channelId!: string;

  @Field(() => ID, { nullable: true, description: 'Null: every job of the tenant.' })
  jobId?: string | null;

  @Field(() => AlertRuleKind)
  kind!: AlertRuleKindValue;

  @Field(() => Int, { description: 'CONSECUTIVE_FAILURES: failed executions in a row; OVERDUE: seconds past due; SKIPPED: 1.' })
  threshold!: number;

  @Field(() => DateTimeScalar)
  createdAt!: Date;
}

@ObjectType('AlertDeliveryOutcome', { description: "How an alert's delivery went." })
export class AlertDeliveryOutcome {
  @Field(() => AlertDeliveryStatus)
  status!: AlertDeliveryStatusValue;

  @Field(() => Int, { description: 'Attempts made so far.' })
  attempts!: number;

  @Field(() => Int, { nullable: true, description: "The last attempt's HTTP status; null when none answered." })
  statusCode?: number | null;

  @Field(() => String, { nullable: true, description: 'Why the last attempt failed.' })
  error?: string | null;

  @Field(() => DateTimeScalar, { nullable: true })
  deliveredAt?: Date | null;
}

@ObjectType('Alert', { description: "An alert raised: one per change of a job's state under a rule." })
export class Alert {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  ruleId!: string;

  @Field(() => ID)
  channelId!: string;

  @Field(() => ID)
  jobId!: string;

  @Field(() => ID, { nullable: true, description: 'The execution that changed the state.' })
  executionId?: string | null;

  @Field(() => AlertRuleKind)
  kind!: AlertRuleKindValue;

  @Field(() => AlertState)
  state!: AlertStateValue;

  @Field(() => String, { description: "Why: the skip's reason, the failure count, how late the job is." })
  reason!: string;

  @Field(() => DateTimeScalar)
  raisedAt!: Date;

  @Field(() => AlertDeliveryOutcome)
  delivery!: AlertDeliveryOutcome;
}

@ObjectType('AlertEdge')
export class AlertEdge {
  @Field(() => String)
  cursor!: string;

  @Field(() => Alert)
  node!: Alert;
}

@ObjectType('AlertConnection')
export class AlertConnection {
  @Field(() => [AlertEdge])
  edges!: AlertEdge[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;
}
