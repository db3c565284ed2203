import { jest } from '@jest/globals';
import { ExecutionStore } from '../../src/store/executionStore.js';

/**
 * Holds every executions page read of `tenant` until `release()`, counting the reads inside at once:
 * how many of the tenant's operations run in the process, whatever transport brought them.
 */
export function holdPageReads(tenant: string) {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the store as `this`
  const read = ExecutionStore.prototype.list;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const seen = { running: 0, most: 0, started: 0 };
  const spy = jest.spyOn(ExecutionStore.prototype, 'list').mockImplementation(async function (this: ExecutionStore, filter, page) {
    if (this.tenantId !== tenant) return read.call(this, filter, page);
    seen.started += 1;
    seen.running += 1;
    seen.most = Math.max(seen.most, seen.running);
    try {
      await released;
      return await read.call(this, filter, page);
    } finally {
      seen.running -= 1;
    }
  });
  return {
    seen,
    release,
    /** Lets any read still held go on, and reads run unwatched again. */
    restore: () => {
      release();
      spy.mockRestore();
    },
  };
}
