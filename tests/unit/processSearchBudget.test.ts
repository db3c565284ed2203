import { describe, expect, it } from '@jest/globals';
import { ProcessSearchBudget } from '../../src/quotas/processSearchBudget.js';

describe('ProcessSearchBudget', () => {
  let now = new Date('2031-01-01T00:00:00.000Z');
  const clock = () => now;
  const later = (ms: number) => (now = new Date(now.getTime() + ms));

  it("gives a second's worth at once, then what the time since refilled, and says how long the rest waits", () => {
    const budget = new ProcessSearchBudget(200, clock);
    expect(budget.take(100)).toBe(0);
    expect(budget.take(100)).toBe(0);
    // 100 more need half a second of refill; none is taken.
    expect(budget.take(100)).toBe(500);
    later(250);
    expect(budget.take(100)).toBe(250);
    later(250);
    expect(budget.take(100)).toBe(0);
    later(60_000);
    // Refilled to one second's worth, not a minute's.
    expect(budget.take(200)).toBe(0);
    expect(budget.take(1)).toBe(5);
  });

  it('takes back what a refused request gave back, up to the burst', () => {
    const budget = new ProcessSearchBudget(100, clock);
    expect(budget.take(100)).toBe(0);
    budget.giveBack(100);
    expect(budget.take(100)).toBe(0);
    budget.giveBack(500);
    expect(budget.take(101)).toBeGreaterThan(0);
  });
});
