import 'reflect-metadata';
import { Field, ID, InputType, Int } from 'type-graphql';
import type { AlertChannelFormat as AlertChannelFormatValue, AlertRuleKind as AlertRuleKindValue } from '../domain/alert.js';
import { AlertChannelFormat, AlertRuleKind } from './alert.type.js';

@InputType('CreateAlertChannelInput')
export class CreateAlertChannelInput {
  @Field(() => String, { description: 'Up to 100 characters.' })
  name!: string;

  @Field(() => String, { description: 'An http(s) URL, up to 2048 characters.' })
  url!: string;

  @Field(() => AlertChannelFormat, { nullable: true, description: 'Default KAIROS.' })
  format?: AlertChannelFormatValue | null;
}

@InputType('CreateAlertRuleInput')
export class CreateAlertRuleInput {
  @Field(() => ID)
  channelId!: string;

  @Field(() => ID, { nullable: true, description: 'One job; omitted or null: every job of the tenant.' })
  jobId?: string | null;

  @Field(() => AlertRuleKind)
  kind!: AlertRuleKindValue;

  @Field(() => Int, {
    nullable: true,
    description:
      'Required for CONSECUTIVE_FAILURES (1 to 1000 failed executions in a row) and OVERDUE (1 to 604800 seconds past due); none for SKIPPED.',
  })
  threshold?: number | null;
}
