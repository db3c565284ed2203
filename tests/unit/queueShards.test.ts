import { describe, expect, it } from '@jest/globals';
import { QueueShards } from '../../src/queue/queueShards.js';

describe('queue shards', () => {
  it('names each shard with its own hash tag, and one shard per workload on one Redis', () => {
    expect(new QueueShards(1).names('IO_BOUND')).toEqual(['{executions-io-0}']);
    expect(new QueueShards(3).names('CPU_BOUND')).toEqual(['{executions-cpu-0}', '{executions-cpu-1}', '{executions-cpu-2}']);
    expect(new QueueShards(1).queueOf('IO_BOUND', 'any-tenant')).toBe('{executions-io-0}');
  });

  it('maps a tenant to the same shard every time and spreads tenants over all shards', () => {
    const shards = new QueueShards(6);
    const tenants = Array.from({ length: 600 }, (_, i) => `tenant-${i}`);
    for (const t of tenants) expect(shards.shardOf(t)).toBe(new QueueShards(6).shardOf(t));
    const counts = new Array<number>(6).fill(0);
    for (const t of tenants) counts[shards.shardOf(t)]++;
    // Each shard gets a fair part (100 expected): a figure, not a timing.
    for (const n of counts) expect(n).toBeGreaterThan(50);
  });

  it('refuses a shard count below one', () => {
    expect(() => new QueueShards(0)).toThrow(/positive integer/);
  });
});
