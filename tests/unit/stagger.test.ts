import { describe, expect, it } from '@jest/globals';
import { ObjectId } from 'mongodb';
import { staggerFraction } from '../../src/scheduler/stagger.js';

describe('staggerFraction', () => {
  it('is the same for a job every time, and within [0, 1)', () => {
    const id = new ObjectId('65a1b2c3d4e5f60718293a4b');
    expect(staggerFraction(id)).toBe(staggerFraction(new ObjectId(id.toHexString())));
    expect(staggerFraction(id)).toBeGreaterThanOrEqual(0);
    expect(staggerFraction(id)).toBeLessThan(1);
  });

  it('spreads jobs created together (consecutive ids) across the range', () => {
    // 60 ids one apart, as one process creates them in a burst: every quarter of the range gets some (15 on average).
    const first = BigInt('0x65a1b2c3d4e5f60718290000');
    const fractions = Array.from({ length: 60 }, (_, i) => staggerFraction(new ObjectId((first + BigInt(i)).toString(16))));
    const quarters = [0, 0, 0, 0];
    for (const f of fractions) quarters[Math.floor(f * 4)]++;
    for (const q of quarters) expect(q).toBeGreaterThanOrEqual(5);
    expect(new Set(fractions).size).toBe(60);
  });
});
