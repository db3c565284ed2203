import type { Db, ObjectId } from 'mongodb';
import type { AlertChannelDoc, AlertRuleDoc } from '../domain/alert.js';
import { collections, type Collections } from './collections.js';
import { deleteOnce } from './deleteOnce.js';

/**
 * A tenant's alert channels and rules. Built per request with the tenant from the token; every
 * query carries it, so another tenant's ids behave like ids that do not exist.
 */
export class AlertSettingsStore {
  private readonly c: Collections;

  constructor(
    db: Db,
    readonly tenantId: string,
  ) {
    this.c = collections(db);
  }

  async insertChannel(channel: Omit<AlertChannelDoc, 'tenantId'>): Promise<AlertChannelDoc> {
    const doc: AlertChannelDoc = { ...channel, tenantId: this.tenantId };
    await this.c.alertChannels.insertOne(doc);
    return doc;
  }

  /** Newest first; a tenant has at most ALERT_LIMITS.channelsPerTenant. */
  async channels(): Promise<AlertChannelDoc[]> {
    return this.c.alertChannels.find({ tenantId: this.tenantId }).sort({ createdAt: -1, _id: -1 }).toArray();
  }

  /** Deletes the channel and the rules that use it; the channel as it was, or null when the tenant has none such. */
  async deleteChannel(id: ObjectId): Promise<AlertChannelDoc | null> {
    const deleted = await deleteOnce(this.c.alertChannels, { _id: id, tenantId: this.tenantId });
    if (deleted) await this.c.alertRules.deleteMany({ tenantId: this.tenantId, channelId: id });
    return deleted;
  }

  async insertRule(rule: Omit<AlertRuleDoc, 'tenantId'>): Promise<AlertRuleDoc> {
    const doc: AlertRuleDoc = { ...rule, tenantId: this.tenantId };
    await this.c.alertRules.insertOne(doc);
    return doc;
  }

  /** Newest first; a tenant has at most ALERT_LIMITS.rulesPerTenant. */
  async rules(): Promise<AlertRuleDoc[]> {
    return this.c.alertRules.find({ tenantId: this.tenantId }).sort({ createdAt: -1, _id: -1 }).toArray();
  }

  /** Deletes the rules that watch the job (it was deleted); the rules as they were. */
  async deleteRulesOfJob(jobId: ObjectId): Promise<AlertRuleDoc[]> {
    const rules = await this.c.alertRules.find({ tenantId: this.tenantId, jobId }).toArray();
    if (rules.length > 0) await this.c.alertRules.deleteMany({ tenantId: this.tenantId, jobId });
    return rules;
  }

  /** Deletes the rule; the rule as it was, or null when the tenant has none such. */
  async deleteRule(id: ObjectId): Promise<AlertRuleDoc | null> {
    return deleteOnce(this.c.alertRules, { _id: id, tenantId: this.tenantId });
  }
}
