import type { AlertDoc } from './alert.js';

/** What a KAIROS-format channel receives (docs/using-the-api.md, "Alerts"). */
export interface AlertPayload {
  alertId: string;
  tenantId: string;
  jobId: string;
  executionId: string | null;
  ruleId: string;
  kind: AlertDoc['kind'];
  state: AlertDoc['state'];
  reason: string;
  raisedAt: string;
}

const SUMMARY: Record<AlertDoc['state'], string> = {
  FAILING: 'is failing',
  RECOVERED: 'recovered',
  SKIPPED: 'skipped an occurrence',
  OVERDUE: 'is overdue',
};

/**
 * The body POSTed for `alert` to its channel: Kairos' JSON (AlertPayload), or for a SLACK channel
 * a Slack-compatible incoming-webhook body, `{ "text": ... }` with the same facts in one line.
 * `jobId` and `executionId` are as the API shows them (global ids).
 */
export function alertBody(alert: AlertDoc, ids: { jobId: string; executionId: string | null; ruleId: string; alertId: string }): string {
  if (alert.channel.format === 'SLACK') {
    const execution = ids.executionId ? ` (execution ${ids.executionId})` : '';
    return JSON.stringify({ text: `Kairos: job ${ids.jobId} ${SUMMARY[alert.state]}${execution}: ${alert.reason}` });
  }
  const payload: AlertPayload = {
    alertId: ids.alertId,
    tenantId: alert.tenantId,
    jobId: ids.jobId,
    executionId: ids.executionId,
    ruleId: ids.ruleId,
    kind: alert.kind,
    state: alert.state,
    reason: alert.reason,
    raisedAt: alert.raisedAt.toISOString(),
  };
  return JSON.stringify(payload);
}
