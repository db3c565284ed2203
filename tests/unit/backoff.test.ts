import { describe, expect, it } from '@jest/globals';
import type { RetryPolicy } from '../../src/domain/job.js';
import { BadUserInputError } from '../../src/errors/index.js';
import { DEFAULT_RETRY_POLICY, backoffDelayMs, parseRetryPolicy } from '../../src/domain/backoff.js';

const lowest = (): number => 0;
const highest = (): number => 0.999999;

describe('backoffDelayMs', () => {
  const policy: RetryPolicy = { maxAttempts: 10, initialBackoffSeconds: 1, maxBackoffSeconds: 300, backoffMultiplier: 2 };

  it('waits exactly the initial backoff after the first failure', () => {
    expect(backoffDelayMs(policy, 1, lowest)).toBe(1000);
    expect(backoffDelayMs(policy, 1, highest)).toBe(1000);
  });

  it('never goes below the initial backoff', () => {
    for (let attempt = 1; attempt <= 12; attempt++) expect(backoffDelayMs(policy, attempt, lowest)).toBe(1000);
  });

  it('doubles the ceiling per failed attempt up to the maximum', () => {
    // Ceiling 2^(n-1) s capped at 300 s; with random 0.999999 the draw reaches it:
    // 1000 + floor(0.999999 * (ceilingMs - 1000 + 1)) = ceilingMs while that span stays below 10^6 ms.
    const ceilings = Array.from({ length: 11 }, (_, i) => backoffDelayMs(policy, i + 1, highest));
    expect(ceilings).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000, 256000, 300000, 300000]);
    expect(backoffDelayMs(policy, 200, highest)).toBe(300000);
  });

  it('draws uniformly between the initial backoff and the ceiling', () => {
    // Third failure: [1000, 4000] ms, 3001 whole milliseconds; floor(0.5 * 3001) = 1500.
    expect(backoffDelayMs(policy, 3, () => 0.5)).toBe(2500);
    // Tenth failure: [1000, 300000] ms; floor(0.25 * 299001) = 74750.
    expect(backoffDelayMs(policy, 10, () => 0.25)).toBe(75750);
  });

  it('returns whole milliseconds within bounds for fractional policies', () => {
    const fractional: RetryPolicy = { maxAttempts: 5, initialBackoffSeconds: 1.1, maxBackoffSeconds: 10, backoffMultiplier: 1.5 };
    // 1.1 * 1000 is 1100.0000000000002 in floating point; the delay is still whole: 1100.
    expect(backoffDelayMs(fractional, 1, highest)).toBe(1100);
    // Second failure: ceiling 1.65 s -> [1100, 1650] ms.
    expect(backoffDelayMs(fractional, 2, highest)).toBe(1650);
    for (const r of [0, 0.1, 0.333, 0.5, 0.77, 0.999999]) {
      for (let attempt = 1; attempt <= 8; attempt++) {
        const delay = backoffDelayMs(fractional, attempt, () => r);
        expect(Number.isInteger(delay)).toBe(true);
        expect(delay).toBeGreaterThanOrEqual(1100);
        expect(delay).toBeLessThanOrEqual(10000);
      }
    }
  });

  it('stays constant with a multiplier of 1', () => {
    const constant: RetryPolicy = { maxAttempts: 5, initialBackoffSeconds: 5, maxBackoffSeconds: 60, backoffMultiplier: 1 };
    expect(backoffDelayMs(constant, 4, highest)).toBe(5000);
  });
});

describe('parseRetryPolicy', () => {
  function rejection(input: Parameters<typeof parseRetryPolicy>[0], base?: RetryPolicy): BadUserInputError {
    try {
      parseRetryPolicy(input, base);
    } catch (error) {
      expect(error).toBeInstanceOf(BadUserInputError);
      return error as BadUserInputError;
    }
    throw new Error(`expected ${JSON.stringify(input)} to be rejected`);
  }

  it('defaults to 3 attempts, 1 s initial, 300 s max, multiplier 2', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({ maxAttempts: 3, initialBackoffSeconds: 1, maxBackoffSeconds: 300, backoffMultiplier: 2 });
    expect(parseRetryPolicy(undefined)).toEqual(DEFAULT_RETRY_POLICY);
    expect(parseRetryPolicy(null)).toEqual(DEFAULT_RETRY_POLICY);
    expect(parseRetryPolicy({})).toEqual(DEFAULT_RETRY_POLICY);
    expect(parseRetryPolicy({})).not.toBe(DEFAULT_RETRY_POLICY);
  });

  it('keeps omitted and null fields from the base', () => {
    expect(parseRetryPolicy({ maxAttempts: 5, backoffMultiplier: null })).toEqual({ ...DEFAULT_RETRY_POLICY, maxAttempts: 5 });
    const current: RetryPolicy = { maxAttempts: 7, initialBackoffSeconds: 10, maxBackoffSeconds: 600, backoffMultiplier: 3 };
    expect(parseRetryPolicy({ initialBackoffSeconds: 20 }, current)).toEqual({ ...current, initialBackoffSeconds: 20 });
  });

  it('accepts the limits', () => {
    expect(parseRetryPolicy({ maxAttempts: 1 }).maxAttempts).toBe(1);
    expect(parseRetryPolicy({ maxAttempts: 20 }).maxAttempts).toBe(20);
    expect(parseRetryPolicy({ maxBackoffSeconds: 86_400 }).maxBackoffSeconds).toBe(86_400);
    expect(parseRetryPolicy({ initialBackoffSeconds: 300 }).initialBackoffSeconds).toBe(300);
    expect(parseRetryPolicy({ backoffMultiplier: 1 }).backoffMultiplier).toBe(1);
    expect(parseRetryPolicy({ backoffMultiplier: 10 }).backoffMultiplier).toBe(10);
  });

  it.each<[string, Parameters<typeof parseRetryPolicy>[0], string, RegExp]>([
    ['0 attempts', { maxAttempts: 0 }, 'retryPolicy.maxAttempts', /from 1 to 20/],
    ['21 attempts', { maxAttempts: 21 }, 'retryPolicy.maxAttempts', /from 1 to 20/],
    ['fractional attempts', { maxAttempts: 2.5 }, 'retryPolicy.maxAttempts', /whole number/],
    ['zero initial backoff', { initialBackoffSeconds: 0 }, 'retryPolicy.initialBackoffSeconds', /greater than 0/],
    ['negative initial backoff', { initialBackoffSeconds: -1 }, 'retryPolicy.initialBackoffSeconds', /greater than 0/],
    ['NaN initial backoff', { initialBackoffSeconds: Number.NaN }, 'retryPolicy.initialBackoffSeconds', /greater than 0/],
    [
      'initial above the default max',
      { initialBackoffSeconds: 600 },
      'retryPolicy.initialBackoffSeconds',
      /\(600\) must not exceed retryPolicy.maxBackoffSeconds \(300\)/,
    ],
    [
      'max below the default initial',
      { maxBackoffSeconds: 0.5 },
      'retryPolicy.maxBackoffSeconds',
      /\(1\) must not exceed retryPolicy.maxBackoffSeconds \(0.5\)/,
    ],
    [
      'both set, initial above max',
      { initialBackoffSeconds: 60, maxBackoffSeconds: 30 },
      'retryPolicy.initialBackoffSeconds',
      /must not exceed/,
    ],
    ['max over a day', { maxBackoffSeconds: 86_401 }, 'retryPolicy.maxBackoffSeconds', /at most 86400/],
    ['multiplier below 1', { backoffMultiplier: 0.5 }, 'retryPolicy.backoffMultiplier', /from 1 .* to 10/],
    ['multiplier above 10', { backoffMultiplier: 11 }, 'retryPolicy.backoffMultiplier', /from 1 .* to 10/],
    ['a status below 100', { nonRetryableStatuses: [400, 99] }, 'retryPolicy.nonRetryableStatuses', /from 100 to 599; got 99/],
    ['a status above 599', { nonRetryableStatuses: [600] }, 'retryPolicy.nonRetryableStatuses', /from 100 to 599; got 600/],
    ['a fractional status', { nonRetryableStatuses: [404.5] }, 'retryPolicy.nonRetryableStatuses', /whole numbers/],
    [
      '51 statuses',
      { nonRetryableStatuses: Array.from({ length: 51 }, (_, i) => 400 + i) },
      'retryPolicy.nonRetryableStatuses',
      /at most 50 statuses; got 51/,
    ],
  ])('rejects %s', (_, input, field, message) => {
    const error = rejection(input);
    expect(error.code).toBe('BAD_USER_INPUT');
    expect(error.details).toEqual({ field });
    expect(error.message).toMatch(message);
  });

  it('validates against the base it updates', () => {
    const current: RetryPolicy = { maxAttempts: 3, initialBackoffSeconds: 10, maxBackoffSeconds: 20, backoffMultiplier: 2 };
    expect(rejection({ maxBackoffSeconds: 5 }, current).details).toEqual({ field: 'retryPolicy.maxBackoffSeconds' });
  });

  describe('nonRetryableStatuses', () => {
    it('is absent (the default rule) unless given', () => {
      expect(parseRetryPolicy({ maxAttempts: 5 })).not.toHaveProperty('nonRetryableStatuses');
      expect(parseRetryPolicy({ nonRetryableStatuses: null })).toEqual(DEFAULT_RETRY_POLICY);
    });

    it('keeps a list deduplicated and sorted, an empty one included', () => {
      expect(parseRetryPolicy({ nonRetryableStatuses: [500, 400, 500, 100, 599] }).nonRetryableStatuses).toEqual([100, 400, 500, 599]);
      expect(parseRetryPolicy({ nonRetryableStatuses: [] }).nonRetryableStatuses).toEqual([]);
      const fifty = Array.from({ length: 50 }, (_, i) => 400 + i);
      expect(parseRetryPolicy({ nonRetryableStatuses: fifty }).nonRetryableStatuses).toEqual(fifty);
    });

    it('keeps the current list on an update that omits it or gives null, and replaces it with a given one', () => {
      const current: RetryPolicy = { ...DEFAULT_RETRY_POLICY, nonRetryableStatuses: [] };
      expect(parseRetryPolicy({ maxAttempts: 5 }, current)).toEqual({ ...current, maxAttempts: 5 });
      expect(parseRetryPolicy({ nonRetryableStatuses: null }, current)).toEqual(current);
      expect(parseRetryPolicy({ nonRetryableStatuses: [410] }, current)).toEqual({ ...current, nonRetryableStatuses: [410] });
    });
  });
});
