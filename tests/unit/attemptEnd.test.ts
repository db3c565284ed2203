import { describe, expect, it } from '@jest/globals';
import type { RetryPolicy } from '../../src/domain/job.js';
import { backoffDelayMs } from '../../src/domain/backoff.js';
import { decideAttemptEnd, type AttemptResult } from '../../src/domain/attemptEnd.js';
import { MAX_RETRY_AFTER_SECONDS } from '../../src/domain/retryAfter.js';

const NOW = new Date('2026-01-01T00:00:00.000Z');
const policy: RetryPolicy = { maxAttempts: 3, initialBackoffSeconds: 2, maxBackoffSeconds: 60, backoffMultiplier: 2 };
const lowest = (): number => 0;
const result = (outcome: AttemptResult['outcome'], extra: Partial<AttemptResult> = {}): AttemptResult => ({
  outcome,
  error: outcome === 'SUCCEEDED' ? null : `${outcome.toLowerCase()} here`,
  httpStatus: null,
  resultJson: null,
  ...extra,
});

describe('decideAttemptEnd', () => {
  it('ends the execution SUCCEEDED with the result, whatever attempts are left', () => {
    expect(
      decideAttemptEnd(result('SUCCEEDED', { resultJson: '{"ok":1}' }), { number: 1, maxAttempts: 3, retryPolicy: policy }, NOW, lowest),
    ).toEqual({
      status: 'SUCCEEDED',
      nextAttemptAt: null,
      final: true,
      error: null,
      reason: null,
      resultJson: '{"ok":1}',
      retryAfterSeconds: null,
    });
  });

  it('ends it CANCELLED with the cancel message as reason, never retried', () => {
    const end = decideAttemptEnd(
      result('CANCELLED', { error: 'cancelled by the user' }),
      { number: 1, maxAttempts: 3, retryPolicy: policy },
      NOW,
      lowest,
    );
    expect(end).toMatchObject({ status: 'CANCELLED', final: true, nextAttemptAt: null, reason: 'cancelled by the user' });
  });

  it.each(['FAILED', 'TIMED_OUT', 'CRASHED'] as const)('retries a %s attempt after the backoff while attempts are left', (outcome) => {
    const first = decideAttemptEnd(result(outcome), { number: 1, maxAttempts: 3, retryPolicy: policy }, NOW, lowest);
    expect(first).toMatchObject({
      status: 'RETRYING',
      final: false,
      nextAttemptAt: new Date(NOW.getTime() + 2000),
      error: `${outcome.toLowerCase()} here`,
    });
    const second = decideAttemptEnd(result(outcome), { number: 2, maxAttempts: 3, retryPolicy: policy }, NOW, lowest);
    expect(second.nextAttemptAt).toEqual(new Date(NOW.getTime() + backoffDelayMs(policy, 2, lowest)));
  });

  it.each(['FAILED', 'TIMED_OUT', 'CRASHED'] as const)('ends it FAILED when the %s attempt was the last', (outcome) => {
    expect(decideAttemptEnd(result(outcome), { number: 3, maxAttempts: 3, retryPolicy: policy }, NOW, lowest)).toMatchObject({
      status: 'FAILED',
      final: true,
      nextAttemptAt: null,
    });
  });

  it('does not retry a final failure (a refused target) even with attempts left', () => {
    expect(
      decideAttemptEnd(result('FAILED', { final: true }), { number: 1, maxAttempts: 3, retryPolicy: policy }, NOW, lowest),
    ).toMatchObject({
      status: 'FAILED',
      final: true,
    });
  });

  describe("the receiver's signals on an HTTP answer", () => {
    const first = { number: 1, maxAttempts: 3, retryPolicy: policy };
    const http = (status: number, extra: Partial<AttemptResult> = {}) =>
      result('FAILED', { error: `HTTP ${status}`, httpStatus: status, resultJson: '{}', ...extra });

    it.each([429, 503])("holds the next attempt back until a %i answer's Retry-After and records the wait", (status) => {
      expect(decideAttemptEnd(http(status, { retryAfter: '30' }), first, NOW, lowest)).toMatchObject({
        status: 'RETRYING',
        nextAttemptAt: new Date(NOW.getTime() + 30_000),
        retryAfterSeconds: 30,
        error: `HTTP ${status}`,
      });
      const date = new Date(NOW.getTime() + 90_000).toUTCString();
      expect(decideAttemptEnd(http(status, { retryAfter: date }), first, NOW, lowest)).toMatchObject({
        nextAttemptAt: new Date(NOW.getTime() + 90_000),
        retryAfterSeconds: 90,
      });
    });

    it('keeps the backoff when it is later than the Retry-After, and still records the wait', () => {
      const end = decideAttemptEnd(http(429, { retryAfter: '1' }), first, NOW, lowest);
      expect(end).toMatchObject({ status: 'RETRYING', nextAttemptAt: new Date(NOW.getTime() + 2000), retryAfterSeconds: 1 });
    });

    it('cuts a Retry-After to the maximum', () => {
      expect(decideAttemptEnd(http(503, { retryAfter: '86400' }), first, NOW, lowest)).toMatchObject({
        nextAttemptAt: new Date(NOW.getTime() + MAX_RETRY_AFTER_SECONDS * 1000),
        retryAfterSeconds: MAX_RETRY_AFTER_SECONDS,
      });
    });

    it('ignores Retry-After on other statuses, and unusable ones', () => {
      for (const end of [
        decideAttemptEnd(http(500, { retryAfter: '30' }), first, NOW, lowest),
        decideAttemptEnd(http(429, { retryAfter: 'soon' }), first, NOW, lowest),
        decideAttemptEnd(http(429, { retryAfter: 'Thu, 01 Jan 2025 00:00:00 GMT' }), first, NOW, lowest),
      ])
        expect(end).toMatchObject({ status: 'RETRYING', nextAttemptAt: new Date(NOW.getTime() + 2000), retryAfterSeconds: null });
    });

    it('uses up an attempt on a 429: the last one ends FAILED, with no wait recorded', () => {
      expect(decideAttemptEnd(http(429, { retryAfter: '30' }), { ...first, number: 3 }, NOW, lowest)).toMatchObject({
        status: 'FAILED',
        final: true,
        nextAttemptAt: null,
        error: 'HTTP 429',
        retryAfterSeconds: null,
      });
    });

    it('fails at once on a 4xx by default, saying why', () => {
      for (const status of [400, 401, 403, 404, 410, 422, 499])
        expect(decideAttemptEnd(http(status), first, NOW, lowest)).toMatchObject({
          status: 'FAILED',
          final: true,
          nextAttemptAt: null,
          error: `HTTP ${status}: not retried (${status} is a non-retryable status; set retryPolicy.nonRetryableStatuses to change this)`,
        });
    });

    it.each([408, 425, 429, 500, 502, 503, 504])('retries a %i by default', (status) => {
      expect(decideAttemptEnd(http(status), first, NOW, lowest)).toMatchObject({ status: 'RETRYING', error: `HTTP ${status}` });
    });

    it("follows the job's own list instead of the default rule", () => {
      const own = { ...first, retryPolicy: { ...policy, nonRetryableStatuses: [409, 500] } };
      expect(decideAttemptEnd(http(500), own, NOW, lowest)).toMatchObject({
        status: 'FAILED',
        final: true,
        error: "HTTP 500: not retried (500 is in the job's retryPolicy.nonRetryableStatuses)",
      });
      expect(decideAttemptEnd(http(400), own, NOW, lowest)).toMatchObject({ status: 'RETRYING', error: 'HTTP 400' });
    });

    it('retries every status with an empty list', () => {
      const none = { ...first, retryPolicy: { ...policy, nonRetryableStatuses: [] } };
      for (const status of [400, 404, 422])
        expect(decideAttemptEnd(http(status), none, NOW, lowest)).toMatchObject({ status: 'RETRYING', error: `HTTP ${status}` });
    });

    it('fails a redirect at once, naming where it pointed, whatever the list says', () => {
      const none = { ...first, retryPolicy: { ...policy, nonRetryableStatuses: [] } };
      expect(decideAttemptEnd(http(301, { location: 'https://x.example/y' }), none, NOW, lowest)).toMatchObject({
        status: 'FAILED',
        final: true,
        nextAttemptAt: null,
        error: 'HTTP 301: redirect to https://x.example/y not followed; point the job at the final URL',
      });
      expect(decideAttemptEnd(http(307), first, NOW, lowest).error).toBe(
        'HTTP 307: redirect (no Location given) not followed; point the job at the final URL',
      );
    });

    it('cuts a long Location and drops credentials from it', () => {
      const long = `https://x.example/${'a'.repeat(300)}`;
      expect(decideAttemptEnd(http(302, { location: long }), first, NOW, lowest).error).toBe(
        `HTTP 302: redirect to ${long.slice(0, 200)}… not followed; point the job at the final URL`,
      );
      expect(decideAttemptEnd(http(302, { location: 'https://me:pw@x.example/y' }), first, NOW, lowest).error).toBe(
        'HTTP 302: redirect to https://x.example/y not followed; point the job at the final URL',
      );
    });

    it('leaves a failure without an HTTP answer as it was', () => {
      expect(decideAttemptEnd(result('TIMED_OUT', { retryAfter: '30' }), first, NOW, lowest)).toMatchObject({
        status: 'RETRYING',
        nextAttemptAt: new Date(NOW.getTime() + 2000),
        retryAfterSeconds: null,
      });
    });
  });
});
