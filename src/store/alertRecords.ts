import type { Db, ObjectId } from 'mongodb';
import type { ActiveAlertRule, AlertDelivery, AlertDoc } from '../domain/alert.js';
import { collections, type Collections } from './collections.js';

/**
 * Alerts across tenants, for the processes that raise and deliver them (workers, the scheduler):
 * a tenant's rules with their channels, keyed by the tenant of an execution or queue entry (never
 * a request's argument), and an alert's record and delivery outcome by its `_id`.
 */
export class AlertRecords {
  private readonly c: Collections;

  constructor(db: Db) {
    this.c = collections(db);
  }

  /** The tenant's rules, each with its channel (a rule whose channel is gone is left out): two small reads. */
  async rulesOf(tenantId: string): Promise<ActiveAlertRule[]> {
    const [rules, channels] = await Promise.all([
      this.c.alertRules.find({ tenantId }).toArray(),
      this.c.alertChannels.find({ tenantId }).toArray(),
    ]);
    const byId = new Map(channels.map((ch) => [ch._id.toHexString(), ch]));
    return rules.flatMap((rule) => {
      const channel = byId.get(rule.channelId.toHexString());
      return channel ? [{ rule, channel }] : [];
    });
  }

  /** Records raised alerts: one insertMany. */
  async insert(alerts: AlertDoc[]): Promise<void> {
    if (alerts.length > 0) await this.c.alerts.insertMany(alerts, { ordered: false });
  }

  async findById(id: ObjectId): Promise<AlertDoc | null> {
    return this.c.alerts.findOne({ _id: id });
  }

  /** Writes how the alert's delivery stands. */
  async recordDelivery(id: ObjectId, delivery: AlertDelivery): Promise<void> {
    await this.c.alerts.updateOne({ _id: id }, { $set: { delivery } });
  }
}
