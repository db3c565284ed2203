// Covers: src/roles/closers.ts
import { describe, expect, it } from '@jest/globals';
import { createHook } from 'node:async_hooks';
import { createLogger } from '../../src/logger.js';
import { startTestKairos } from '../support/harness.js';
import { waitUntil } from '../support/waitFor.js';

interface TimerResource {
  _idleTimeout: number;
  _destroyed: boolean;
  hasRef(): boolean;
}

/**
 * An in-process Kairos must not keep the process alive after stop(): Agenda's liveness check of the
 * due-index rebuild left a timer of half its lock (5 minutes), so every test file that started the
 * scheduler role kept jest from exiting for that long. Timers are watched from the start (async_hooks).
 */
describe('stop()', () => {
  it('leaves no long timer behind once the scheduler has run its system jobs', async () => {
    const timers = new Map<number, TimerResource>();
    const hook = createHook({
      init(id, type, _trigger, resource) {
        if (type === 'Timeout') timers.set(id, resource as TimerResource);
      },
      destroy(id) {
        timers.delete(id);
      },
    }).enable();
    try {
      const lines: string[] = [];
      const k = await startTestKairos('stoptimers', {
        roles: ['scheduler'],
        logger: createLogger({}, 'info', (line) => lines.push(line)),
      });
      try {
        await waitUntil(
          'the due index rebuild to run',
          async () => lines.some((l) => l.includes('refreshed the due index')) || undefined,
          15_000,
        );
      } finally {
        await k.stop();
      }
      const left = [...timers.values()].filter((t) => !t._destroyed && t.hasRef() && t._idleTimeout > 10_000).map((t) => t._idleTimeout);
      expect(left).toEqual([]);
    } finally {
      hook.disable();
    }
  });
});
