import { readFileSync } from 'node:fs';
import { ownedKey } from '../redis/ownedKey.js';
import type { RedisClient } from '../redis/redisClient.js';

const script = (name: string) => readFileSync(new URL(`./lua/${name}.lua`, import.meta.url), 'utf8');
const ACQUIRE = script('acquireLease');

export interface LeaderLeaseOptions {
  /** Who competes; unique per process. */
  candidateId: string;
  /** Key prefix shared by every scheduler of one deployment. */
  prefix: string;
  /** Lease TTL (config LEASE_TTL_MS); a dead leader is replaced after about this long. */
  ttlMs: number;
  /** How often the lease is tried or renewed. Default ttlMs / 3. */
  renewEveryMs?: number;
  onAcquired: (fencingToken: number) => void;
  onLost: () => void;
  onError?: (error: unknown) => void;
}

/**
 * The scheduler's leader lease: a Redis key set with NX and a TTL, renewed by a compare-and-set
 * script while this process is healthy. It is an efficiency measure, not the safety net: the
 * compare-and-sets in MongoDB keep two leaders from doubling or losing an occurrence.
 * Uses the caller's Redis connection (the caller owns and closes it).
 */
/** The lease's key: its value is the holder's candidate id (`host-pid-random`). */
export function leaseKey(prefix: string): string {
  return `${prefix}:{leader}`;
}

export class LeaderLease {
  private timer: NodeJS.Timeout | null = null;
  private token = 0;
  private stopped = false;
  private readonly ttlMs: number;
  private readonly renewEveryMs: number;
  private readonly key: string;
  private readonly fenceKey: string;

  constructor(
    private readonly redis: RedisClient,
    private readonly options: LeaderLeaseOptions,
  ) {
    this.ttlMs = options.ttlMs;
    this.renewEveryMs = options.renewEveryMs ?? Math.floor(this.ttlMs / 3);
    // One hash tag for both: the acquire script touches them together (one slot on a Redis Cluster).
    this.key = leaseKey(options.prefix);
    this.fenceKey = `${options.prefix}:{leader}:fence`;
  }

  get isLeader(): boolean {
    return this.token > 0;
  }

  get fencingToken(): number {
    return this.token;
  }

  start(): void {
    this.stopped = false;
    void this.tick();
  }

  private async tick(): Promise<void> {
    try {
      if (this.token > 0) {
        if (!(await ownedKey.renew(this.redis, this.key, this.options.candidateId, this.ttlMs))) this.lose();
      } else {
        const token = Number(await this.redis.eval(ACQUIRE, 2, this.key, this.fenceKey, this.options.candidateId, this.ttlMs));
        if (token > 0 && !this.stopped) {
          this.token = token;
          this.options.onAcquired(token);
        }
      }
    } catch (error) {
      // Unreachable Redis: we cannot prove we still hold the lease, so act as if we lost it.
      this.lose();
      this.options.onError?.(error);
    }
    if (!this.stopped) this.timer = setTimeout(() => void this.tick(), this.renewEveryMs);
  }

  private lose(): void {
    if (this.token === 0) return;
    this.token = 0;
    this.options.onLost();
  }

  /** Stops competing and releases the lease at once, so a standby takes over without waiting for the TTL. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.token > 0) {
      // Stop acting as leader before the key is freed, so two holders never overlap in time.
      this.token = 0;
      this.options.onLost();
      await ownedKey.release(this.redis, this.key, this.options.candidateId).catch(() => undefined);
    }
  }
}
