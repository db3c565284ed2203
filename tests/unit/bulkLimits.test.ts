import { describe, expect, it } from '@jest/globals';
import { BadUserInputError } from '../../src/errors/index.js';
import { CANCELLABLE, OPERATION_ID_LENGTH, bulkStatuses, checkMatched, parseOperationId } from '../../src/executions/bulkLimits.js';

describe('bulk operation limits', () => {
  it("narrows a retry's statuses to FAILED and CANCELLED, FAILED (the dead letters) by default", () => {
    expect(bulkStatuses('RETRY', null)).toEqual(['FAILED']);
    expect(bulkStatuses('RETRY', [])).toEqual(['FAILED']);
    expect(bulkStatuses('RETRY', ['CANCELLED', 'SUCCEEDED'])).toEqual(['CANCELLED']);
    expect(() => bulkStatuses('RETRY', ['SUCCEEDED', 'RUNNING'])).toThrow(BadUserInputError);
  });

  it("narrows a cancel's statuses to waiting and running ones, all of them by default", () => {
    expect(bulkStatuses('CANCEL', undefined)).toEqual([...CANCELLABLE]);
    expect(CANCELLABLE).toEqual(['SCHEDULED', 'QUEUED', 'RETRYING', 'RUNNING']);
    expect(bulkStatuses('CANCEL', ['FAILED', 'QUEUED'])).toEqual(['QUEUED']);
    expect(() => bulkStatuses('CANCEL', ['FAILED'])).toThrow(/filter.statuses names none/);
  });

  it('refuses a set over the maximum, naming the setting', () => {
    expect(() => checkMatched(10_000, 10_000)).not.toThrow();
    expect(() => checkMatched(10_001, 10_000)).toThrow(/more than 10000 executions.*BULK_MAX_EXECUTIONS/);
    try {
      checkMatched(2, 1);
    } catch (error) {
      expect((error as BadUserInputError).details).toEqual({ field: 'filter' });
    }
    expect.assertions(3);
  });

  it('checks an operationId as an idempotency key', () => {
    expect(parseOperationId(null)).toBeNull();
    expect(parseOperationId('nightly-2026-12-07')).toBe('nightly-2026-12-07');
    expect(() => parseOperationId('')).toThrow(BadUserInputError);
    expect(() => parseOperationId('x'.repeat(OPERATION_ID_LENGTH + 1))).toThrow(/operationId must be 1 to 200/);
    expect(() => parseOperationId('a\nb')).toThrow(/control characters/);
  });
});
