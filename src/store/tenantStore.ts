import type { Db } from 'mongodb';
import type { TenantDoc } from '../domain/tenant.js';
import { collections, type Collections } from './collections.js';
import { isDuplicateKey } from './mongo.js';
import { newWebhookSecret } from '../domain/webhookSecret.js';

export interface DefaultQuota {
  maxJobs: number;
  maxConcurrentExecutions: number;
  maxExecutionsPerMinute: number;
  maxWaitingExecutions: number;
  executionRetentionDays: number;
  maxSocketsPerCredential: number;
  maxSockets: number;
  maxSubscriptionsPerSocket: number;
  maxSubscriptions: number;
}

/** Tenant records: created on first use with the default plan and a fresh webhook signing secret. */
export class TenantStore {
  private readonly c: Collections;

  constructor(
    db: Db,
    private readonly defaults: DefaultQuota,
  ) {
    this.c = collections(db);
  }

  /** Returns the tenant, creating it on first use; concurrent first uses converge on one record. */
  async ensure(tenantId: string, now: Date): Promise<TenantDoc> {
    const existing = await this.c.tenants.findOne({ _id: tenantId });
    if (existing) return this.withDefaults(existing);
    const fresh: Omit<TenantDoc, '_id'> = {
      ...this.defaults,
      webhookSecret: newWebhookSecret(),
      createdAt: now,
    };
    try {
      await this.c.tenants.updateOne({ _id: tenantId }, { $setOnInsert: fresh }, { upsert: true });
    } catch (error) {
      // Two concurrent upserts can both try the insert; the loser gets a duplicate key and reads the winner's.
      if (!isDuplicateKey(error)) throw error;
    }
    const created = await this.c.tenants.findOne({ _id: tenantId });
    if (!created) throw new Error(`tenant ${tenantId} vanished right after its creation`);
    return this.withDefaults(created);
  }

  /** Each tenant's retention, for the purge (tenants created before retention existed get the default). */
  async retentions(): Promise<{ tenantId: string; executionRetentionDays: number }[]> {
    const rows = await this.c.tenants.find({}, { projection: { _id: 1, executionRetentionDays: 1 } }).toArray();
    return rows.map((t) => ({ tenantId: t._id, executionRetentionDays: t.executionRetentionDays ?? this.defaults.executionRetentionDays }));
  }

  /** A quota added after a tenant was created reads as the default until set in its document. */
  private withDefaults(tenant: TenantDoc): TenantDoc {
    const d = this.defaults;
    return {
      ...tenant,
      executionRetentionDays: tenant.executionRetentionDays ?? d.executionRetentionDays,
      maxWaitingExecutions: tenant.maxWaitingExecutions ?? d.maxWaitingExecutions,
      maxSocketsPerCredential: tenant.maxSocketsPerCredential ?? d.maxSocketsPerCredential,
      maxSockets: tenant.maxSockets ?? d.maxSockets,
      maxSubscriptionsPerSocket: tenant.maxSubscriptionsPerSocket ?? d.maxSubscriptionsPerSocket,
      maxSubscriptions: tenant.maxSubscriptions ?? d.maxSubscriptions,
    };
  }

  /**
   * Makes `secret` the tenant's signing secret if `current` still is (the tenant exists: `ensure` it
   * first). The replaced one keeps signing until `previousExpiresAt`, or stops at once when it is
   * null; a previous secret from an earlier rotation is dropped either way (one previous at a time).
   * False when another rotation replaced `current` first, so that neither caller's secret is lost unseen.
   */
  async rotateWebhookSecret(
    tenantId: string,
    current: string,
    secret: string,
    previousExpiresAt: Date | null,
    now: Date,
  ): Promise<boolean> {
    const filter = { _id: tenantId, webhookSecret: current };
    const rotated = { webhookSecret: secret, webhookSecretRotatedAt: now };
    const { matchedCount } = previousExpiresAt
      ? await this.c.tenants.updateOne(filter, {
          $set: { ...rotated, previousWebhookSecret: current, previousWebhookSecretExpiresAt: previousExpiresAt },
        })
      : await this.c.tenants.updateOne(filter, {
          $set: rotated,
          $unset: { previousWebhookSecret: '', previousWebhookSecretExpiresAt: '' },
        });
    return matchedCount === 1;
  }

  /** Drops the previous webhook secret, ending its grace at once; nothing to do when there is none. */
  async revokePreviousWebhookSecret(tenantId: string): Promise<void> {
    await this.c.tenants.updateOne({ _id: tenantId }, { $unset: { previousWebhookSecret: '', previousWebhookSecretExpiresAt: '' } });
  }
}
