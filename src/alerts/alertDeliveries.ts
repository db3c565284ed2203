import { Queue, type ConnectionOptions } from 'bullmq';
import type { AlertDoc } from '../domain/alert.js';

/** The queue of alert deliveries: one hash tag, so its keys share a slot on a Redis Cluster. */
export const ALERT_QUEUE = '{alerts}';

/** What an entry of the alert queue carries: the alert's id (its record holds the rest). */
export interface AlertMessage {
  alertId: string;
}

/**
 * The producer side of alert deliveries (a BullMQ queue, `{alerts}`): one entry per alert, its id
 * the alert's, retried by BullMQ with exponential backoff from `backoffMs` up to `attempts` times
 * (ALERT_DELIVERY_*), as an execution's delivery is retried. Consumed by the scheduler role's
 * processes (alertDeliverer.ts), not the workers: an alert that the workers are down must not wait
 * for them. `connection` options open a connection of its own; a shared client (a cluster's) stays
 * its owner's.
 */
export class AlertDeliveries {
  private readonly queue: Queue<AlertMessage>;

  constructor(
    connection: ConnectionOptions,
    prefix: string,
    private readonly retry: { attempts: number; backoffMs: number },
    onError: (error: Error) => void,
  ) {
    const shared = 'duplicate' in connection;
    // No offline queue: an add fails at once while Redis is away (the alert stays recorded PENDING).
    this.queue = new Queue<AlertMessage>(ALERT_QUEUE, {
      connection: shared ? connection : { ...connection, enableOfflineQueue: false },
      prefix,
    });
    this.queue.on('error', onError);
  }

  async enqueue(alerts: readonly AlertDoc[]): Promise<void> {
    if (alerts.length === 0) return;
    await this.queue.addBulk(
      alerts.map((a) => ({
        name: 'alert',
        data: { alertId: a._id.toHexString() },
        opts: {
          jobId: a._id.toHexString(),
          attempts: this.retry.attempts,
          backoff: { type: 'exponential', delay: this.retry.backoffMs },
          removeOnComplete: true,
          removeOnFail: true,
        },
      })),
    );
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
