import { describe, expect, it } from '@jest/globals';
import { percentile } from '../../src/executions/executionStats.js';

describe('percentile (nearest rank)', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
  it('takes the value at rank ceil(p/100 * n)', () => {
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 100)).toBe(100);
    expect(percentile([7, 9, 30], 50)).toBe(9);
    expect(percentile([7, 9, 30], 99)).toBe(30);
  });
  it('is null for no values and the value itself for one', () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([42], 99)).toBe(42);
  });
});
