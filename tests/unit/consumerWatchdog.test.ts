import { describe, expect, it } from '@jest/globals';
import { ConsumerWatchdog } from '../../src/workers/consumerWatchdog.js';

const NOW = Date.parse('2026-12-03T12:00:00Z');

describe('the watchdog that finds queue consumers which stopped taking work', () => {
  it('names an idle consumer past the threshold whose queue has entries due, and reads only the idle ones', async () => {
    const asked: string[] = [];
    const waiting: Record<string, number> = { wedged: 3, empty: 0, busy: 5, recent: 2 };
    const watchdog = new ConsumerWatchdog({ waiting: async (name) => (asked.push(name), waiting[name]) }, { wedgedAfterMs: 15_000 });
    const consumers = [
      { name: 'wedged', inFlight: 0, lastTakenAt: NOW - 15_000 },
      // Idle as long, but nothing waits: a quiet shard, not a stuck one.
      { name: 'empty', inFlight: 0, lastTakenAt: NOW - 60_000 },
      // Running something: not idle, whatever waits (its pool may be full).
      { name: 'busy', inFlight: 1, lastTakenAt: NOW - 60_000 },
      // Took an entry within the threshold.
      { name: 'recent', inFlight: 0, lastTakenAt: NOW - 14_999 },
    ];
    const wedged = await watchdog.wedged(consumers, NOW);
    expect(wedged.map((c) => c.name)).toEqual(['wedged']);
    expect(wedged[0]).toBe(consumers[0]);
    expect(asked.sort()).toEqual(['empty', 'wedged']);
  });

  it('finds none, and reads nothing, when every consumer took work recently', async () => {
    const watchdog = new ConsumerWatchdog(
      {
        waiting: async () => {
          throw new Error('not asked');
        },
      },
      { wedgedAfterMs: 1000 },
    );
    expect(await watchdog.wedged([{ name: 'a', inFlight: 0, lastTakenAt: NOW - 10 }], NOW)).toEqual([]);
  });
});
