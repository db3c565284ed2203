import { describe, expect, it } from '@jest/globals';
import { QuotaExceededError } from '../../src/errors/index.js';
import { createLogger } from '../../src/logger.js';
import { checkWaitingQuota, TRIM_EVERY_MS, type WaitingCounts } from '../../src/quotas/waitingQuota.js';

/** A waiting index that counts `counted` and, once trimmed, `afterTrim`; it records each trim's cap and period. */
function index(counted: number, afterTrim = counted): WaitingCounts & { trims: number[] } {
  const trims: number[] = [];
  return {
    trims,
    count: async () => counted,
    trim: async (_tenantId, cap, everyMs) => {
      trims.push(cap, everyMs);
      return afterTrim;
    },
  };
}

function logger(lines: Record<string, unknown>[]) {
  return createLogger({ test: 'waitingQuota' }, 'warn', (line) => lines.push(JSON.parse(line) as Record<string, unknown>));
}

async function refusal(promise: Promise<void>): Promise<QuotaExceededError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(QuotaExceededError);
  return error as QuotaExceededError;
}

describe('checkWaitingQuota', () => {
  it('lets a tenant under its cap through on the count alone, without checking it against the queue', async () => {
    const counts = index(999);
    await checkWaitingQuota(counts, 't', 1000, logger([]));
    expect(counts.trims).toEqual([]);
  });

  it('checks a count at the cap against the queue before refusing, and lets it through when it was high', async () => {
    const counts = index(1000, 990);
    await checkWaitingQuota(counts, 't', 1000, logger([]));
    expect(counts.trims).toEqual([1000, TRIM_EVERY_MS]);
  });

  it('refuses at the cap with QUOTA_EXCEEDED, naming the limit and how many wait', async () => {
    const error = await refusal(checkWaitingQuota(index(1200, 1004), 't', 1000, logger([])));
    expect(error.code).toBe('QUOTA_EXCEEDED');
    expect(error.message).toBe(
      'This tenant may have at most 1000 executions waiting to run (maxWaitingExecutions) and has 1004; wait for some to start, or cancel some',
    );
    expect(error.details).toEqual({ maxWaitingExecutions: 1000, waitingExecutions: 1004 });
  });

  it('checks nothing when Redis cannot answer, and says so', async () => {
    const lines: Record<string, unknown>[] = [];
    const failing: WaitingCounts = {
      count: () => Promise.reject(new Error('Connection is closed.')),
      trim: () => Promise.reject(new Error('unused')),
    };
    await checkWaitingQuota(failing, 't', 1, logger(lines));
    expect(lines).toEqual([
      expect.objectContaining({ level: 'warn', msg: 'waiting executions not counted: Redis unreachable', tenantId: 't' }),
    ]);
  });
});
