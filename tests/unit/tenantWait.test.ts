import { describe, expect, it } from '@jest/globals';
import { tenantWaitMs } from '../../src/workers/tenantWait.js';

describe('the wait of an execution refused a tenant slot', () => {
  const noJitter = () => 0;
  it.each([
    // waiting, limit, wait without jitter
    [1, 100, 500],
    [25, 100, 500],
    [100, 100, 2000],
    [400, 100, 8000],
    [2000, 100, 30_000],
    [50_000, 100, 30_000],
    [3, 1, 6000],
    [0, 0, 500],
  ])('%i waiting for %i slots wait %i ms', (waiting, limit, ms) => {
    expect(tenantWaitMs(waiting, limit, noJitter)).toBe(ms);
  });

  it('keeps the tries per second near limit / (spread × base), whatever the backlog', () => {
    for (const waiting of [1000, 2000, 3000]) {
      const triesPerSecond = waiting / (tenantWaitMs(waiting, 500, noJitter) / 1000);
      expect(triesPerSecond).toBe(250);
    }
  });

  it('adds up to half again as jitter', () => {
    expect(tenantWaitMs(100, 100, () => 0.999)).toBe(2999);
    expect(tenantWaitMs(100, 100, () => 0.5)).toBe(2500);
  });
});
