import { describe, expect, it } from '@jest/globals';
import { backfillDueTimes } from '../../src/domain/backfillPacing.js';

const NOW = new Date('2026-12-07T12:00:00.000Z');
const offsets = (dates: Date[]) => dates.map((d) => d.getTime() - NOW.getTime());

describe('backfillDueTimes: when each backfilled execution starts', () => {
  it('ALLOW: the first now, then one every 1/perSecond', () => {
    expect(offsets(backfillDueTimes({ overlapPolicy: 'ALLOW', timeoutSeconds: 60 }, 4, { perSecond: 4 }, NOW))).toEqual([0, 250, 500, 750]);
  });

  it('another overlap policy: one per timeoutSeconds at least, so they do not overlap one another', () => {
    for (const overlapPolicy of ['SKIP', 'BUFFER_ONE', 'CANCEL_PREVIOUS'] as const) {
      expect(offsets(backfillDueTimes({ overlapPolicy, timeoutSeconds: 3 }, 3, { perSecond: 10 }, NOW))).toEqual([0, 3000, 6000]);
    }
    // The pace still holds when it is the slower of the two.
    expect(offsets(backfillDueTimes({ overlapPolicy: 'SKIP', timeoutSeconds: 1 }, 2, { perSecond: 0.5 }, NOW))).toEqual([0, 2000]);
  });

  it('none for none', () => {
    expect(backfillDueTimes({ overlapPolicy: 'ALLOW', timeoutSeconds: 60 }, 0, { perSecond: 2 }, NOW)).toEqual([]);
  });
});
