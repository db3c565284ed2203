import type { ObjectId } from 'mongodb';

/**
 * What an alert rule watches: a job's consecutive failed executions (and, once it alerted, the
 * success that ends them: its recovery), an occurrence SKIPPED (misfire, budget, overlap), or a job
 * overdue (an occurrence due longer than the rule's threshold with no start).
 */
export const ALERT_RULE_KINDS = ['CONSECUTIVE_FAILURES', 'SKIPPED', 'OVERDUE'] as const;
export type AlertRuleKind = (typeof ALERT_RULE_KINDS)[number];

/** The change of state an alert announces. */
export const ALERT_STATES = ['FAILING', 'RECOVERED', 'SKIPPED', 'OVERDUE'] as const;
export type AlertState = (typeof ALERT_STATES)[number];

/** The body an alert channel receives: Kairos' own JSON, or a Slack-compatible incoming-webhook body (`{ "text": ... }`). */
export const ALERT_CHANNEL_FORMATS = ['KAIROS', 'SLACK'] as const;
export type AlertChannelFormat = (typeof ALERT_CHANNEL_FORMATS)[number];

/** Where an alert's delivery stands: on its way (or retrying), delivered (2xx), given up, or not sent (the tenant's alert rate was spent). */
export const ALERT_DELIVERY_STATUSES = ['PENDING', 'DELIVERED', 'FAILED', 'RATE_LIMITED'] as const;
export type AlertDeliveryStatus = (typeof ALERT_DELIVERY_STATUSES)[number];

/** Bounds on what a tenant defines, so a tenant's rules stay one small read and the per-process cache small. */
export const ALERT_LIMITS = {
  channelsPerTenant: 20,
  rulesPerTenant: 100,
  nameLength: 100,
  urlLength: 2048,
  maxFailures: 1000,
  /** The longest overdue threshold: a week. */
  maxOverdueSeconds: 7 * 86_400,
  /** The shortest: below it a busy queue's ordinary lag would alert. */
  minOverdueSeconds: 1,
} as const;

/** An alert channel: where a tenant's alerts are POSTed, signed like deliveries. */
export interface AlertChannelDoc {
  _id: ObjectId;
  tenantId: string;
  name: string;
  url: string;
  format: AlertChannelFormat;
  createdAt: Date;
}

/** An alert rule: what to watch, for one job or (jobId null) every job of the tenant, and which channel to tell. */
export interface AlertRuleDoc {
  _id: ObjectId;
  tenantId: string;
  channelId: ObjectId;
  /** Null: every job of the tenant. */
  jobId: ObjectId | null;
  kind: AlertRuleKind;
  /** CONSECUTIVE_FAILURES: failed executions in a row; OVERDUE: seconds past due; SKIPPED: 1 (unused). */
  threshold: number;
  createdAt: Date;
}

/** A rule with its channel, as the evaluator uses it. */
export interface ActiveAlertRule {
  rule: AlertRuleDoc;
  channel: AlertChannelDoc;
}

/** How an alert's delivery went: attempts made, the last answer's status or error, when it was delivered. */
export interface AlertDelivery {
  status: AlertDeliveryStatus;
  attempts: number;
  statusCode: number | null;
  error: string | null;
  deliveredAt: Date | null;
}

/** An alert raised: one per change of state of a job under a rule, recorded before it is delivered. */
export interface AlertDoc {
  _id: ObjectId;
  tenantId: string;
  ruleId: ObjectId;
  channelId: ObjectId;
  jobId: ObjectId;
  /** The execution that changed the state (null for OVERDUE raised from the queue when none is known). */
  executionId: ObjectId | null;
  kind: AlertRuleKind;
  state: AlertState;
  /** Why: the skip's reason, the failure count, how late the job is. */
  reason: string;
  raisedAt: Date;
  /** The channel as it was when the alert was raised: a delivery needs no second read. */
  channel: Pick<AlertChannelDoc, 'url' | 'format'>;
  delivery: AlertDelivery;
}
