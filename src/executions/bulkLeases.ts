import { ownedKey } from '../redis/ownedKey.js';
import type { RedisClient } from '../redis/redisClient.js';

/**
 * Which api process runs each bulk operation: a Redis key per operation (`<prefix>:bulk-lease:<id>`)
 * holding the runner's id, set with NX and a TTL and renewed while it runs. A process that dies
 * stops renewing; once the key expires another runner takes the operation over.
 */
export class BulkLeases {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    /** This runner's id, unique per process. */
    private readonly holder: string,
    readonly leaseMs: number,
  ) {}

  private key(operationId: string): string {
    return `${this.prefix}:bulk-lease:${operationId}`;
  }

  async acquire(operationId: string): Promise<boolean> {
    return (await this.redis.set(this.key(operationId), this.holder, 'PX', this.leaseMs, 'NX')) === 'OK';
  }

  /** False when the lease is no longer this runner's (it lapsed and another took it). */
  async renew(operationId: string): Promise<boolean> {
    return ownedKey.renew(this.redis, this.key(operationId), this.holder, this.leaseMs);
  }

  async release(operationId: string): Promise<void> {
    await ownedKey.release(this.redis, this.key(operationId), this.holder);
  }
}
