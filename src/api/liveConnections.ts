import { QuotaExceededError } from '../errors/index.js';
import type { Quota } from '../quotas/tenantQuotas.js';

/** The close code of a socket refused at connection_init for passing a socket cap (docs/using-the-api.md, "Quotas and limits"). */
export const TOO_MANY_SOCKETS = 4429;

/** The part of a graphql-ws connection context the counts read: the operations it runs (graphql-ws keeps them). */
export interface CountedConnection {
  readonly subscriptions: Readonly<Record<string, unknown>>;
}

export type ConnectionQuota = Pick<Quota, 'maxSocketsPerCredential' | 'maxSockets' | 'maxSubscriptionsPerSocket' | 'maxSubscriptions'>;

interface Owner {
  tenantId: string;
  credential: string;
  /** The tenant's caps as read when the socket connected: operations are admitted without a lookup. */
  quota: ConnectionQuota;
}

/**
 * The subscription sockets open on this api process, by tenant and by credential (a JWT subject or
 * an API key), and the operations they run. Kept in memory on purpose: the counts die with the
 * process that holds the sockets, so a crashed replica can never leave a tenant locked out, which
 * counts in Redis would need a heartbeat and expiry to avoid. The caps are therefore per process.
 */
export class LiveConnections {
  private readonly owners = new Map<CountedConnection, Owner>();
  private readonly byTenant = new Map<string, Set<CountedConnection>>();
  private readonly byCredential = new Map<string, number>();

  /**
   * Counts `connection` for its tenant and credential and returns null, or returns why it may not
   * open (a message for the close frame) and counts nothing. Synchronous, so two sockets connecting
   * at once cannot both take the last slot.
   */
  admit(connection: CountedConnection, tenantId: string, subject: string, quota: ConnectionQuota): string | null {
    if (this.owners.has(connection)) return null;
    // \n cannot occur in a tenant id, so two tenants' subjects never share a key.
    const credential = `${tenantId}\n${subject}`;
    if ((this.byCredential.get(credential) ?? 0) >= quota.maxSocketsPerCredential) {
      return `This credential may hold at most ${quota.maxSocketsPerCredential} open sockets on this server; close one first`;
    }
    const tenantSockets = this.byTenant.get(tenantId) ?? new Set<CountedConnection>();
    if (tenantSockets.size >= quota.maxSockets) {
      return `This tenant may hold at most ${quota.maxSockets} open sockets on this server; close one first`;
    }
    tenantSockets.add(connection);
    this.byTenant.set(tenantId, tenantSockets);
    this.byCredential.set(credential, (this.byCredential.get(credential) ?? 0) + 1);
    this.owners.set(connection, { tenantId, credential, quota });
    return null;
  }

  /** Frees the connection's slots (when its socket has closed); a second call does nothing. */
  release(connection: CountedConnection): void {
    const owner = this.owners.get(connection);
    if (!owner) return;
    this.owners.delete(connection);
    const tenantSockets = this.byTenant.get(owner.tenantId);
    tenantSockets?.delete(connection);
    if (tenantSockets?.size === 0) this.byTenant.delete(owner.tenantId);
    const held = (this.byCredential.get(owner.credential) ?? 1) - 1;
    if (held > 0) this.byCredential.set(owner.credential, held);
    else this.byCredential.delete(owner.credential);
  }

  /**
   * The error for an operation that would pass a subscription cap of the connection's tenant (as
   * read at connect), or null when it may run; null too for a connection never admitted.
   * graphql-ws enters each operation in `connection.subscriptions` as it arrives, before asking, and
   * removes it when it ends: asked synchronously on arrival, this admits a burst in arrival order,
   * the first ones up to the cap.
   */
  operationRefusal(connection: CountedConnection): QuotaExceededError | null {
    const owner = this.owners.get(connection);
    if (!owner) return null;
    const { quota } = owner;
    if (running(connection) > quota.maxSubscriptionsPerSocket) {
      return new QuotaExceededError(`A socket may run at most ${quota.maxSubscriptionsPerSocket} operations at once; complete one first`, {
        maxSubscriptionsPerSocket: quota.maxSubscriptionsPerSocket,
      });
    }
    let tenantTotal = 0;
    for (const other of this.byTenant.get(owner.tenantId) ?? []) tenantTotal += running(other);
    if (tenantTotal > quota.maxSubscriptions) {
      return new QuotaExceededError(
        `This tenant may run at most ${quota.maxSubscriptions} operations at once over its sockets on this server; complete one first`,
        {
          maxSubscriptions: quota.maxSubscriptions,
        },
      );
    }
    return null;
  }
}

function running(connection: CountedConnection): number {
  return Object.keys(connection.subscriptions).length;
}
