import { describe, expect, it } from '@jest/globals';
import { GroupCommit } from '../../src/store/groupCommit.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** A write that records its batches and finishes when told to. */
function recorder() {
  const batches: number[][] = [];
  const finishers: (() => void)[] = [];
  const write = (items: number[]) =>
    new Promise<string[]>((resolve) => {
      batches.push(items);
      finishers.push(() => resolve(items.map((i) => `done ${i}`)));
    });
  return { batches, finishers, write };
}

const tick = (ms = 5) => sleep(ms);

describe('GroupCommit', () => {
  it('writes the items submitted within the window as one batch and gives each caller its own result', async () => {
    const r = recorder();
    const group = new GroupCommit(r.write, { windowMs: 1 });
    const results = [1, 2, 3].map((i) => group.submit(i));
    await tick();
    expect(r.batches).toEqual([[1, 2, 3]]);
    r.finishers[0]();
    expect(await Promise.all(results)).toEqual(['done 1', 'done 2', 'done 3']);
  });

  it('collects what arrives while the batches in flight are written and sends it when one returns', async () => {
    const r = recorder();
    const group = new GroupCommit(r.write, { windowMs: 1, maxInFlight: 1 });
    const first = group.submit(1);
    await tick();
    const later = [2, 3, 4].map((i) => group.submit(i));
    await tick();
    expect(r.batches).toEqual([[1]]);
    r.finishers[0]();
    await first;
    await tick();
    expect(r.batches).toEqual([[1], [2, 3, 4]]);
    r.finishers[1]();
    expect(await Promise.all(later)).toEqual(['done 2', 'done 3', 'done 4']);
  });

  it('splits at maxItems', async () => {
    const r = recorder();
    const group = new GroupCommit(r.write, { windowMs: 1, maxItems: 2, maxInFlight: 5 });
    const all = [1, 2, 3, 4, 5].map((i) => group.submit(i));
    await tick();
    expect(r.batches).toEqual([[1, 2], [3, 4], [5]]);
    r.finishers.forEach((f) => f());
    expect(await Promise.all(all)).toHaveLength(5);
  });

  it('rejects every caller of a batch whose write fails', async () => {
    const group = new GroupCommit<number, string>(async () => Promise.reject(new Error('down')), { windowMs: 1 });
    const results = await Promise.allSettled([group.submit(1), group.submit(2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});
