import { afterAll, beforeAll, expect } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Fails a test file that leaves a connection, server or child process behind (open handles are why
 * jest hangs). Compares those kinds of active resources before and after the file's tests. Timers
 * are not counted: jest's own come and go, which would make the check flaky. A test file's own
 * hooks must sit inside a describe block: top-level ones would run after this check.
 */
const WATCHED = new Set(['TCPSocketWrap', 'TCPServerWrap', 'ProcessWrap']);
let before: Map<string, number>;

function snapshot(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) {
    if (WATCHED.has(kind)) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return counts;
}

beforeAll(() => {
  before = snapshot();
});

afterAll(async () => {
  // Sockets closed by `quit()` or `close()` finish closing on the next turns of the event loop.
  let leaked: string[] = [];
  for (let i = 0; i < 40; i++) {
    const now = snapshot();
    leaked = [...now].filter(([kind, n]) => n > (before.get(kind) ?? 0)).map(([kind, n]) => `${kind} x${n - (before.get(kind) ?? 0)}`);
    if (leaked.length === 0) return;
    await sleep(50, undefined, { ref: false });
  }
  expect(leaked).toEqual([]);
});
