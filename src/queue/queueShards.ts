import type { Workload } from '../domain/job.js';

/** Base name of each workload's queues: IO_BOUND and CPU_BOUND executions are consumed by different pools. */
export const QUEUE_NAMES: Record<Workload, string> = { IO_BOUND: 'executions-io', CPU_BOUND: 'executions-cpu' };

/**
 * The queues of a deployment: each workload's executions spread over `shards` queues by tenant
 * (config QUEUE_SHARDS). A shard's name is its own hash tag (`{executions-io-3}`), so every key of
 * one queue lands in one hash slot (BullMQ's scripts touch several at once) and, on a Redis Cluster,
 * different shards land on different masters. Every process of a deployment must use the same count:
 * producers pick the shard from the tenant, workers consume all of them.
 */
export class QueueShards {
  constructor(readonly shards: number) {
    if (!Number.isInteger(shards) || shards < 1) throw new Error(`queue shards must be a positive integer, got ${shards}`);
  }

  /** The queue name of one shard of a workload. */
  name(workload: Workload, shard: number): string {
    return `{${QUEUE_NAMES[workload]}-${shard}}`;
  }

  /** Every queue name of a workload, shard 0 first. */
  names(workload: Workload): string[] {
    return Array.from({ length: this.shards }, (_, shard) => this.name(workload, shard));
  }

  /** The shard a tenant's executions go to: a stable hash (FNV-1a), the same in every process. */
  shardOf(tenantId: string): number {
    if (this.shards === 1) return 0;
    let hash = 0x811c9dc5;
    for (let i = 0; i < tenantId.length; i++) {
      hash ^= tenantId.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193);
    }
    return (hash >>> 0) % this.shards;
  }

  /** The queue of a tenant's executions of a workload. */
  queueOf(workload: Workload, tenantId: string): string {
    return this.name(workload, this.shardOf(tenantId));
  }
}
