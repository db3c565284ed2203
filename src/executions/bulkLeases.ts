import type { RedisClient } from '../redis/redisClient.js';

// Renews or releases the lease only while `holder` has it: a lapsed lease another process took stays theirs.
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

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
    return Number(await this.redis.eval(RENEW, 1, this.key(operationId), this.holder, this.leaseMs)) === 1;
  }

  async release(operationId: string): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key(operationId), this.holder);
  }
}
