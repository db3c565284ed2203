import { describe, expect, it } from '@jest/globals';
import { shareOf, TenantShare } from '../../src/workers/tenantShare.js';

describe('a tenant share of a worker process', () => {
  it.each([
    [1000, 25, 250],
    [4, 50, 2],
    [64, 25, 16],
    [2, 25, 1],
    [1, 1, 1],
    [10, 100, 10],
  ])('%i slots at %i %% give %i per tenant', (slots, percent, share) => {
    expect(shareOf(slots, percent)).toBe(share);
  });

  it('gives each tenant its share per workload, and a place back once however often it is released', () => {
    const share = new TenantShare({ IO_BOUND: 2, CPU_BOUND: 1 });
    const first = share.take('a', 'IO_BOUND');
    const second = share.take('a', 'IO_BOUND');
    expect(first).not.toBeNull();
    expect(second).not.toBeNull();
    expect(share.take('a', 'IO_BOUND')).toBeNull();
    // Another tenant, and the other pool, have their own.
    expect(share.take('b', 'IO_BOUND')).not.toBeNull();
    expect(share.take('a', 'CPU_BOUND')).not.toBeNull();
    expect(share.take('a', 'CPU_BOUND')).toBeNull();
    first!();
    first!();
    expect(share.held('a', 'IO_BOUND')).toBe(1);
    expect(share.take('a', 'IO_BOUND')).not.toBeNull();
    expect(share.take('a', 'IO_BOUND')).toBeNull();
  });
});
