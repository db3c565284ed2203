import { describe, expect, it } from '@jest/globals';
import type { JobDoc, Schedule } from '../../src/domain/job.js';
import { firstOccurrence } from '../../src/domain/schedule/nextOccurrences.js';
import { nextRunAt } from '../../src/domain/schedule/nextRunAt.js';
import { planOccurrences } from '../../src/scheduler/planOccurrences.js';
import { jobDoc } from '../support/fixtures.js';

const LOOK_AHEAD_MS = 30_000;
const at = (iso: string) => new Date(iso);
const plus = (d: Date, ms: number) => new Date(d.getTime() + ms);
const iso = (d: Date | null) => d?.toISOString() ?? null;

/** A job as createJob (or resumeJob / updateJob, which compute the cursor the same way) writes it at `now`. */
function fresh(schedule: Partial<Schedule>, now: Date): JobDoc {
  // Callers give the fields that matter (a kind with its field, or just intervalSeconds); the rest default.
  const full = { kind: 'INTERVAL', timezone: 'UTC', jitterSeconds: 0, ...schedule } as Schedule;
  const cursor = firstOccurrence(full, now);
  return jobDoc(cursor ?? now, { schedule: full, scheduleCursor: cursor, status: cursor ? 'ACTIVE' : 'COMPLETED' });
}

/** The job after the scheduler (or the API's near-term pass) materialised its look-ahead window at `now`. */
function materialised(job: JobDoc, now: Date): JobDoc {
  const plan = planOccurrences(job, now, plus(now, LOOK_AHEAD_MS), Infinity);
  return { ...job, scheduleCursor: plan.scheduleCursor, status: plan.status };
}

describe('nextRunAt: the next occurrence that has not started, materialised or not', () => {
  it('interval: the first occurrence, not the materialisation cursor, and it moves on as occurrences start', () => {
    // The reported case: every 10 s, created at 20:34:43.4, first run 20:34:53.4.
    const created = at('2026-12-02T20:34:43.400Z');
    const job = materialised(fresh({ intervalSeconds: 10 }, created), created);
    expect(iso(job.scheduleCursor)).toBe('2026-12-02T20:35:23.400Z');
    expect(iso(nextRunAt(job, created))).toBe('2026-12-02T20:34:53.400Z');
    expect(iso(nextRunAt(job, at('2026-12-02T20:34:53.399Z')))).toBe('2026-12-02T20:34:53.400Z');
    expect(iso(nextRunAt(job, at('2026-12-02T20:34:53.400Z')))).toBe('2026-12-02T20:35:03.400Z');
    expect(iso(nextRunAt(job, at('2026-12-02T20:35:13.401Z')))).toBe('2026-12-02T20:35:23.400Z');
  });

  it('interval before any materialisation and when the sweep is late: the cursor itself', () => {
    const created = at('2030-01-01T00:00:00.000Z');
    const hourly = fresh({ intervalSeconds: 3600 }, created);
    expect(iso(nextRunAt(hourly, created))).toBe('2030-01-01T01:00:00.000Z');
    // Overdue and not materialised yet (no scheduler ran): it has not started, so it is still next.
    expect(iso(nextRunAt(hourly, at('2030-01-01T01:00:05.000Z')))).toBe('2030-01-01T01:00:00.000Z');
  });

  it('interval with startAt: startAt, never an earlier step of its sequence', () => {
    const created = at('2030-01-01T00:00:00.000Z');
    const job = materialised(fresh({ intervalSeconds: 5, startAt: at('2030-01-01T00:00:20.000Z') }, created), created);
    expect(iso(job.scheduleCursor)).toBe('2030-01-01T00:00:35.000Z');
    expect(iso(nextRunAt(job, created))).toBe('2030-01-01T00:00:20.000Z');
    expect(iso(nextRunAt(job, at('2030-01-01T00:00:21.000Z')))).toBe('2030-01-01T00:00:25.000Z');
  });

  it('cron: the next matching instant inside the materialised window, in the schedule zone', () => {
    const created = at('2030-01-01T08:59:50.000Z');
    const job = materialised(fresh({ kind: 'CRON', cron: '*/10 * * * * *', timezone: 'Europe/Paris' }, created), created);
    expect(iso(job.scheduleCursor)).toBe('2030-01-01T09:00:30.000Z');
    expect(iso(nextRunAt(job, created))).toBe('2030-01-01T09:00:00.000Z');
    expect(iso(nextRunAt(job, at('2030-01-01T09:00:00.000Z')))).toBe('2030-01-01T09:00:10.000Z');
    const weekdays = fresh({ kind: 'CRON', cron: '0 9 * * 1-5', timezone: 'Europe/Paris' }, at('2030-01-04T09:00:00.000Z')); // a Friday
    expect(iso(nextRunAt(weekdays, at('2030-01-04T09:00:00.000Z')))).toBe('2030-01-07T08:00:00.000Z');
  });

  it('one-off: runAt until it starts, although materialising it already completed the schedule', () => {
    const created = at('2030-01-01T00:00:00.000Z');
    const job = materialised(fresh({ kind: 'ONCE', runAt: at('2030-01-01T00:00:10.000Z') }, created), created);
    expect(job).toMatchObject({ status: 'COMPLETED', scheduleCursor: null });
    expect(iso(nextRunAt(job, created))).toBe('2030-01-01T00:00:10.000Z');
    expect(nextRunAt(job, at('2030-01-01T00:00:10.000Z'))).toBeNull();
    const later = fresh({ kind: 'ONCE', runAt: at('2030-06-01T00:00:00.000Z') }, created);
    expect(iso(nextRunAt(later, created))).toBe('2030-06-01T00:00:00.000Z');
  });

  it('paused: null; resumed: the first occurrence from the resume time, materialised or not', () => {
    const created = at('2030-01-01T00:00:00.000Z');
    const job = materialised(fresh({ intervalSeconds: 10 }, created), created);
    const paused: JobDoc = { ...job, status: 'PAUSED', scheduleCursor: null };
    expect(nextRunAt(paused, at('2030-01-01T00:00:03.000Z'))).toBeNull();
    const resumedAt = at('2030-01-01T00:07:03.000Z');
    const resumed = materialised({ ...fresh(job.schedule, resumedAt), _id: job._id }, resumedAt);
    expect(iso(nextRunAt(resumed, resumedAt))).toBe('2030-01-01T00:07:13.000Z');
  });

  it('updated: the new schedule from the update time, not the old cursor', () => {
    const created = at('2030-01-01T00:00:00.000Z');
    const job = materialised(fresh({ intervalSeconds: 10 }, created), created);
    const updatedAt = at('2030-01-01T00:00:04.000Z');
    const updated = materialised({ ...fresh({ intervalSeconds: 3 }, updatedAt), _id: job._id }, updatedAt);
    expect(iso(nextRunAt(updated, updatedAt))).toBe('2030-01-01T00:00:07.000Z');
    expect(iso(nextRunAt(updated, at('2030-01-01T00:00:07.500Z')))).toBe('2030-01-01T00:00:10.000Z');
  });

  it('a schedule past its endAt has none', () => {
    const done: JobDoc = {
      ...fresh({ kind: 'CRON', cron: '0 * * * *', endAt: at('2030-01-01T00:30:00.000Z') }, at('2030-01-01T01:00:00.000Z')),
    };
    expect(done.status).toBe('COMPLETED');
    expect(nextRunAt(done, at('2030-01-01T01:00:00.000Z'))).toBeNull();
  });
});
