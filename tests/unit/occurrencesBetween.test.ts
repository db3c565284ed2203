import { describe, expect, it } from '@jest/globals';
import type { Schedule } from '../../src/domain/job.js';
import { occurrenceKey } from '../../src/domain/occurrenceKey.js';
import { formatLocal } from '../../src/domain/schedule/formatLocal.js';
import { occurrencesBetween } from '../../src/domain/schedule/occurrencesBetween.js';
import { planOccurrences } from '../../src/scheduler/planOccurrences.js';
import { jobDoc } from '../support/fixtures.js';

const at = (iso: string) => new Date(iso);
const isos = (dates: Date[]) => dates.map((d) => d.toISOString());
const BERLIN_0230: Schedule = { kind: 'CRON', cron: '30 2 * * *', timezone: 'Europe/Berlin', jitterSeconds: 0 };

describe('occurrencesBetween: the occurrences a backfill covers', () => {
  it('a daily 02:30 in Europe/Berlin across the spring change: 02:30 CET, the skipped 02:30 at 03:00 CEST, then 02:30 CEST', () => {
    const job = jobDoc(at('2026-12-01T01:30:00Z'), { schedule: BERLIN_0230 });
    // March 2026 in Berlin, [from, to): 30 days, 1 to 30 March; clocks go forward on the 29th at 02:00.
    const instants = occurrencesBetween(job, at('2026-02-28T23:00:00Z'), at('2026-03-30T22:00:00Z'), 100);
    expect(instants).toHaveLength(30);
    expect(isos(instants.slice(0, 2))).toEqual(['2026-03-01T01:30:00.000Z', '2026-03-02T01:30:00.000Z']);
    expect(isos(instants.slice(26))).toEqual([
      '2026-03-27T01:30:00.000Z',
      '2026-03-28T01:30:00.000Z',
      '2026-03-29T01:00:00.000Z',
      '2026-03-30T00:30:00.000Z',
    ]);
    expect(instants.slice(26).map((d) => formatLocal(d, 'Europe/Berlin'))).toEqual([
      '2026-03-27T02:30:00.000+01:00',
      '2026-03-28T02:30:00.000+01:00',
      '2026-03-29T03:00:00.000+02:00',
      '2026-03-30T02:30:00.000+02:00',
    ]);
  });

  it('the autumn change: 02:30 happens twice on 25 October and fires once, at the first', () => {
    const job = jobDoc(at('2026-12-01T01:30:00Z'), { schedule: BERLIN_0230 });
    const instants = occurrencesBetween(job, at('2026-10-24T00:00:00Z'), at('2026-10-27T00:00:00Z'), 100);
    expect(isos(instants)).toEqual(['2026-10-24T00:30:00.000Z', '2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
  });

  it('[from, to): an occurrence at `from` is in, one at `to` is out; none outside startAt and endAt', () => {
    const daily: Schedule = { kind: 'CRON', cron: '0 12 * * *', timezone: 'UTC', jitterSeconds: 0 };
    const job = jobDoc(at('2026-12-01T12:00:00Z'), { schedule: daily });
    expect(isos(occurrencesBetween(job, at('2026-11-01T12:00:00Z'), at('2026-11-03T12:00:00Z'), 10))).toEqual([
      '2026-11-01T12:00:00.000Z',
      '2026-11-02T12:00:00.000Z',
    ]);
    const bounded = jobDoc(at('2026-12-01T12:00:00Z'), {
      schedule: { ...daily, startAt: at('2026-11-02T00:00:00Z'), endAt: at('2026-11-03T12:00:00Z') },
    });
    expect(isos(occurrencesBetween(bounded, at('2026-11-01T00:00:00Z'), at('2026-11-10T00:00:00Z'), 10))).toEqual([
      '2026-11-02T12:00:00.000Z',
      '2026-11-03T12:00:00.000Z',
    ]);
  });

  it('stops at `max`, so a caller asking for one more than allowed tells a range with too many', () => {
    const job = jobDoc(at('2026-12-01T00:00:00Z'), { schedule: { kind: 'CRON', cron: '* * * * *', timezone: 'UTC', jitterSeconds: 0 } });
    expect(occurrencesBetween(job, at('2026-11-01T00:00:00Z'), at('2026-11-02T00:00:00Z'), 11)).toHaveLength(11);
  });

  it("INTERVAL: the grid of the job's cursor, before and after it, so keys match the scheduler's occurrences", () => {
    const cursor = at('2026-12-01T00:00:07Z');
    const job = jobDoc(cursor, { schedule: { kind: 'INTERVAL', intervalSeconds: 60, timezone: 'UTC', jitterSeconds: 0 } });
    expect(isos(occurrencesBetween(job, at('2026-11-30T23:58:00Z'), at('2026-12-01T00:01:00Z'), 10))).toEqual([
      '2026-11-30T23:58:07.000Z',
      '2026-11-30T23:59:07.000Z',
      '2026-12-01T00:00:07.000Z',
    ]);
    // The scheduler's own occurrences from that cursor have the same keys.
    const planned = planOccurrences(job, cursor, at('2026-12-01T00:02:07Z'), Infinity).occurrences.map((o) =>
      occurrenceKey(job._id, o.nominal),
    );
    const backfilled = occurrencesBetween(job, cursor, at('2026-12-01T00:02:08Z'), 10).map((d) => occurrenceKey(job._id, d));
    expect(backfilled).toEqual(planned);
  });

  it('INTERVAL without a cursor (paused): the grid of its startAt, else of its creation', () => {
    const schedule: Schedule = {
      kind: 'INTERVAL',
      intervalSeconds: 3600,
      timezone: 'UTC',
      jitterSeconds: 0,
      startAt: at('2026-11-01T00:15:00Z'),
    };
    const paused = jobDoc(at('2026-12-01T00:00:00Z'), { schedule, scheduleCursor: null, status: 'PAUSED' });
    expect(isos(occurrencesBetween(paused, at('2026-10-01T00:00:00Z'), at('2026-11-01T02:00:00Z'), 10))).toEqual([
      '2026-11-01T00:15:00.000Z',
      '2026-11-01T01:15:00.000Z',
    ]);
    const noStart = jobDoc(at('2026-12-01T00:00:00Z'), {
      schedule: { ...schedule, startAt: undefined },
      scheduleCursor: null,
      createdAt: at('2026-11-01T00:00:30Z'),
    });
    expect(isos(occurrencesBetween(noStart, at('2026-11-01T03:00:00Z'), at('2026-11-01T05:00:00Z'), 10))).toEqual([
      '2026-11-01T03:00:30.000Z',
      '2026-11-01T04:00:30.000Z',
    ]);
  });

  it('ONCE: its runAt when inside the range', () => {
    const job = jobDoc(at('2026-12-01T00:00:00Z'), {
      schedule: { kind: 'ONCE', runAt: at('2026-11-05T10:00:00Z'), timezone: 'UTC', jitterSeconds: 0 },
    });
    expect(isos(occurrencesBetween(job, at('2026-11-01T00:00:00Z'), at('2026-11-06T00:00:00Z'), 10))).toEqual(['2026-11-05T10:00:00.000Z']);
    expect(occurrencesBetween(job, at('2026-11-06T00:00:00Z'), at('2026-11-07T00:00:00Z'), 10)).toEqual([]);
  });
});
