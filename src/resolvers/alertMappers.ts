import type { AlertChannelDoc, AlertDoc, AlertRuleDoc } from '../domain/alert.js';
import { toGlobalId } from '../ids/globalId.js';
import type { Alert, AlertChannel, AlertRule } from '../schema/alert.type.js';

export function toAlertChannel(doc: AlertChannelDoc): AlertChannel {
  return { id: toGlobalId('AlertChannel', doc._id), name: doc.name, url: doc.url, format: doc.format, createdAt: doc.createdAt };
}

export function toAlertRule(doc: AlertRuleDoc): AlertRule {
  return {
    id: toGlobalId('AlertRule', doc._id),
    channelId: toGlobalId('AlertChannel', doc.channelId),
    jobId: doc.jobId && toGlobalId('Job', doc.jobId),
    kind: doc.kind,
    threshold: doc.threshold,
    createdAt: doc.createdAt,
  };
}

export function toAlert(doc: AlertDoc): Alert {
  return {
    id: toGlobalId('Alert', doc._id),
    ruleId: toGlobalId('AlertRule', doc.ruleId),
    channelId: toGlobalId('AlertChannel', doc.channelId),
    jobId: toGlobalId('Job', doc.jobId),
    executionId: doc.executionId && toGlobalId('Execution', doc.executionId),
    kind: doc.kind,
    state: doc.state,
    reason: doc.reason,
    raisedAt: doc.raisedAt,
    delivery: doc.delivery,
  };
}
