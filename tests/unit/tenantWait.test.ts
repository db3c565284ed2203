import { describe, expect, it } from '@jest/globals';
import { tenantWaitMs } from '../../src/workers/tenantWait.js';

describe('the wait of an execution refused a tenant slot', () => {
  const noJitter = () => 0;
  it.each([
    // waiting, limit, wait without jitter
    [1, 100, 500],
    [100, 100, 500],
    [400, 100, 2000],
    [2000, 100, 10_000],
    [50_000, 100, 10_000],
    [3, 1, 1500],
    [0, 0, 500],
  ])('%i waiting for %i slots wait %i ms', (waiting, limit, ms) => {
    expect(tenantWaitMs(waiting, limit, noJitter)).toBe(ms);
  });

  it('keeps the tries per second near limit / base, whatever the backlog', () => {
    for (const waiting of [1000, 2000, 5000]) {
      const triesPerSecond = waiting / (tenantWaitMs(waiting, 250, noJitter) / 1000);
      expect(triesPerSecond).toBe(500);
    }
  });

  it('adds up to half again as jitter', () => {
    expect(tenantWaitMs(400, 100, () => 0.999)).toBe(2999);
    expect(tenantWaitMs(400, 100, () => 0.5)).toBe(2500);
  });
});
