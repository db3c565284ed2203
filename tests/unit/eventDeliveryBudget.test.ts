import { describe, expect, it } from '@jest/globals';
import { EventDeliveryBudget } from '../../src/quotas/eventDeliveryBudget.js';

describe('EventDeliveryBudget', () => {
  let now = new Date('2031-01-01T00:00:00.000Z');
  const clock = () => now;
  const later = (ms: number) => (now = new Date(now.getTime() + ms));

  it("gives a tenant its second's worth at once, then what the time since refilled, apart from other tenants", () => {
    const budget = new EventDeliveryBudget(3, clock);
    expect([budget.take('a'), budget.take('a'), budget.take('a'), budget.take('a')]).toEqual([true, true, true, false]);
    expect(budget.take('b')).toBe(true);
    later(340);
    expect([budget.take('a'), budget.take('a')]).toEqual([true, false]);
    later(10_000);
    // Refilled to one second's worth, not more.
    expect([budget.take('a'), budget.take('a'), budget.take('a'), budget.take('a')]).toEqual([true, true, true, false]);
  });

  it('keeps at most maxTenants buckets, forgetting the least recently used', () => {
    const budget = new EventDeliveryBudget(1, clock, 2);
    expect(budget.take('a')).toBe(true);
    expect(budget.take('b')).toBe(true);
    expect(budget.take('c')).toBe(true);
    // 'a' was forgotten (a fresh bucket); 'c' is still spent.
    expect(budget.take('a')).toBe(true);
    expect(budget.take('c')).toBe(false);
  });
});
