import { describe, expect, it } from '@jest/globals';
import { PoolGate } from '../../src/workers/poolGate.js';

describe("the pool gate shared by the consumers of a workload's shards", () => {
  it('lets `size` holders in, hands a released slot to the first waiter, and refuses waiters once closed', async () => {
    const gate = new PoolGate(2);
    const a = await gate.acquire();
    const b = await gate.acquire();
    const order: string[] = [];
    const c = gate.acquire().then((r) => (order.push('c'), r));
    const d = gate.acquire().then((r) => (order.push('d'), r));
    a!();
    a!(); // a second release of the same slot frees nothing more
    const cRelease = await c;
    expect(cRelease).not.toBeNull();
    expect(order).toEqual(['c']);
    gate.close();
    expect(await d).toBeNull();
    expect(await gate.acquire()).toBeNull();
    b!();
    cRelease!();
  });
});
