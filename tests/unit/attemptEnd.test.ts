import { describe, expect, it } from '@jest/globals';
import type { RetryPolicy } from '../../src/domain/job.js';
import { backoffDelayMs } from '../../src/domain/backoff.js';
import { decideAttemptEnd, type AttemptResult } from '../../src/domain/attemptEnd.js';

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
});
