import { Worker, type ConnectionOptions, type Job } from 'bullmq';
import { ObjectId } from 'mongodb';
import type { Dispatcher } from 'undici';
import type { Clock } from '../clock.js';
import type { AlertDelivery, AlertDoc } from '../domain/alert.js';
import { alertBody } from '../domain/alertPayload.js';
import { signingSecrets } from '../domain/webhookSecretRotation.js';
import { toGlobalId } from '../ids/globalId.js';
import { errorMessage, type Logger } from '../logger.js';
import type { AlertRecords } from '../store/alertRecords.js';
import type { TenantStore } from '../store/tenantStore.js';
import { callHttpTarget } from '../workers/targets/httpTarget.js';
import { ALERT_QUEUE, type AlertMessage } from './alertDeliveries.js';

/** One delivery attempt's time limit: a receiver that holds the request longer fails the attempt. */
const ATTEMPT_TIMEOUT_MS = 10_000;
/** Alerts one process delivers at once. */
const CONCURRENCY = 20;

export interface AlertDelivererDeps {
  records: Pick<AlertRecords, 'findById' | 'recordDelivery'>;
  /** The tenant's webhook secrets, which sign the alert as they sign a delivery. */
  tenants: Pick<TenantStore, 'ensure'>;
  http: { dispatcher?: Dispatcher; allowPrivate: boolean };
  clock: Clock;
  logger: Logger;
}

/**
 * Delivers one alert: POSTs its body (alertPayload.ts) to the channel's URL, signed exactly as an
 * execution's HTTP delivery (httpTarget.ts: X-Kairos-Signature-V2 over the alert's global id, sent as
 * X-Kairos-Execution-Id and X-Kairos-Alert-Id), and records the outcome on the alert. A non-2xx
 * answer or a network error throws, so the queue retries it with backoff; the last attempt's
 * failure is recorded FAILED. `attempt` counts from 1, `attempts` is the most there will be.
 */
export async function deliverAlert(deps: AlertDelivererDeps, alertId: ObjectId, attempt: number, attempts: number): Promise<void> {
  const alert = await deps.records.findById(alertId);
  if (!alert || alert.delivery.status !== 'PENDING') return;
  const tenant = await deps.tenants.ensure(alert.tenantId, deps.clock());
  const now = deps.clock();
  const ids = idsOf(alert);
  let outcome: Pick<AlertDelivery, 'statusCode' | 'error'>;
  try {
    const response = await callHttpTarget({
      url: alert.channel.url,
      method: 'POST',
      headers: [{ name: 'X-Kairos-Alert-Id', value: ids.alertId }],
      payloadJson: alertBody(alert, ids),
      executionId: ids.alertId,
      jobId: ids.jobId,
      attempt,
      scheduledFor: alert.raisedAt,
      secret: signingSecrets(tenant, now),
      signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      now,
      dispatcher: deps.http.dispatcher,
      allowPrivate: deps.http.allowPrivate,
    });
    if (response.ok) {
      await deps.records.recordDelivery(alert._id, {
        status: 'DELIVERED',
        attempts: attempt,
        statusCode: response.status,
        error: null,
        deliveredAt: deps.clock(),
      });
      return;
    }
    outcome = { statusCode: response.status, error: `the channel answered ${response.status}` };
  } catch (error) {
    // Every role reads `delivery.error`, and only ADMINs the channel's URL (it may hold credentials): never echo it.
    outcome = { statusCode: null, error: errorMessage(error).split(alert.channel.url).join('<channel url>') };
  }
  const last = attempt >= attempts;
  await deps.records.recordDelivery(alert._id, { status: last ? 'FAILED' : 'PENDING', attempts: attempt, deliveredAt: null, ...outcome });
  if (!last) throw new Error(outcome.error ?? 'alert not delivered');
}

function idsOf(alert: AlertDoc): { alertId: string; jobId: string; executionId: string | null; ruleId: string } {
  return {
    alertId: toGlobalId('Alert', alert._id),
    jobId: toGlobalId('Job', alert.jobId),
    executionId: alert.executionId && toGlobalId('Execution', alert.executionId),
    ruleId: toGlobalId('AlertRule', alert.ruleId),
  };
}

/** Consumes the alert queue (alertDeliveries.ts) in this process; close() stops it. */
export function startAlertDeliverer(connection: ConnectionOptions, prefix: string, deps: AlertDelivererDeps): { close(): Promise<void> } {
  const worker = new Worker<AlertMessage>(
    ALERT_QUEUE,
    (job: Job<AlertMessage>) => deliverAlert(deps, new ObjectId(job.data.alertId), job.attemptsMade + 1, job.opts.attempts ?? 1),
    { connection, prefix, concurrency: CONCURRENCY },
  );
  worker.on('error', (error) => deps.logger.warn('alert queue error', { error: errorMessage(error) }));
  return { close: () => worker.close() };
}
