import { describe, expect, it } from '@jest/globals';
import { EXECUTION_STATUSES } from '../../src/domain/execution.js';
import { HISTORY_STATUSES, UPCOMING_STATUSES, statusesMatching, statusesOfPhase } from '../../src/domain/executionPhase.js';

describe('execution phases', () => {
  it('put every status in exactly one phase', () => {
    expect([...HISTORY_STATUSES, ...UPCOMING_STATUSES].sort()).toEqual([...EXECUTION_STATUSES].sort());
    expect(UPCOMING_STATUSES).toEqual(['SCHEDULED', 'QUEUED']);
    expect(statusesOfPhase('HISTORY')).toBe(HISTORY_STATUSES);
  });

  it('restrict nothing without a phase or statuses', () => {
    expect(statusesMatching(null, null)).toBeNull();
    expect(statusesMatching([], undefined)).toBeNull();
  });

  it('are the statuses asked for without a phase, and the phase without statuses', () => {
    expect(statusesMatching(['FAILED', 'FAILED'], null)).toEqual(['FAILED']);
    expect(statusesMatching(null, 'UPCOMING')).toEqual(['SCHEDULED', 'QUEUED']);
    expect(statusesMatching([], 'HISTORY')).toEqual(HISTORY_STATUSES);
  });

  it('intersect a phase with statuses, possibly to nothing', () => {
    expect(statusesMatching(['QUEUED', 'FAILED', 'RUNNING'], 'HISTORY')).toEqual(['FAILED', 'RUNNING']);
    expect(statusesMatching(['QUEUED', 'FAILED'], 'UPCOMING')).toEqual(['QUEUED']);
    expect(statusesMatching(['SUCCEEDED'], 'UPCOMING')).toEqual([]);
  });
});
