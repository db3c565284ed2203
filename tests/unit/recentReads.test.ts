import { describe, expect, it } from '@jest/globals';
import { RecentReads } from '../../src/quotas/recentReads.js';

describe('RecentReads', () => {
  it('shares a read younger than maxAgeMs among callers of one key, and reads again after it', async () => {
    let now = 0;
    let reads = 0;
    const recent = new RecentReads<number>(() => new Date(now), 250);
    const load = async () => ++reads;
    expect(await Promise.all([recent.read('a', load), recent.read('a', load)])).toEqual([1, 1]);
    now = 249;
    expect(await recent.read('a', load)).toBe(1);
    expect(await recent.read('b', load)).toBe(2);
    now = 250;
    expect(await recent.read('a', load)).toBe(3);
  });

  it('does not keep a failed read, and keeps at most maxEntries keys', async () => {
    const recent = new RecentReads<string>(() => new Date(0), 1000, 2);
    await expect(recent.read('a', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await recent.read('a', async () => 'back')).toBe('back');
    await recent.read('b', async () => 'b');
    await recent.read('c', async () => 'c');
    // 'a' was the oldest: it went when 'c' came.
    expect(await recent.read('a', async () => 'read again')).toBe('read again');
    expect(await recent.read('c', async () => 'not read')).toBe('c');
  });
});
