import { describe, expect, it } from '@jest/globals';
import { writeBurstMs } from '../../src/api/writeRateLimit.js';

describe('writeBurstMs', () => {
  it("is what 10 s refill, at least 10 writes and at most a minute's allowance", () => {
    const burst = (perMinute: number) => Math.round((perMinute * writeBurstMs(perMinute)) / 60_000);
    expect(writeBurstMs(600)).toBe(10_000);
    expect(burst(600)).toBe(100);
    expect(burst(60)).toBe(10);
    expect(burst(30)).toBe(10);
    expect(burst(5)).toBe(5);
    expect(writeBurstMs(5)).toBe(60_000);
    expect(burst(100_000)).toBe(16_667);
  });
});
