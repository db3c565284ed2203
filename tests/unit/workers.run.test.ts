import { describe, expect, it } from '@jest/globals';
import { notDueBefore } from '../../src/workers/run.js';

const NOW = new Date('2026-12-07T12:00:00.000Z');
const later = new Date(NOW.getTime() + 2000);

describe('notDueBefore: a retry read from MongoDB waits for its nextAttemptAt', () => {
  it("holds a RETRYING execution back until its backoff or the receiver's Retry-After is over", () => {
    expect(notDueBefore({ status: 'RETRYING', nextAttemptAt: later }, NOW)).toEqual(later);
  });

  it('lets a retry that is due run, and anything waiting otherwise', () => {
    expect(notDueBefore({ status: 'RETRYING', nextAttemptAt: NOW }, NOW)).toBeNull();
    expect(notDueBefore({ status: 'RETRYING', nextAttemptAt: null }, NOW)).toBeNull();
    expect(notDueBefore({ status: 'QUEUED', nextAttemptAt: later }, NOW)).toBeNull();
    expect(notDueBefore({ status: 'QUEUED' }, NOW)).toBeNull();
  });
});
