import { describe, expect, it } from '@jest/globals';
import { MAX_MISSED_RECORDED, planOccurrences } from '../../src/scheduler/planOccurrences.js';
import type { JobDoc, MisfirePolicy, Schedule } from '../../src/domain/job.js';
import { jobDoc } from '../support/fixtures.js';

const NOW = new Date('2030-01-01T12:00:00.000Z');
const at = (iso: string) => new Date(iso);

function job(schedule: Partial<Schedule>, nextRunAt: Date, misfirePolicy: MisfirePolicy = 'RUN_ONCE'): JobDoc {
  // Callers give the fields that matter (a kind with its field, or an interval); the rest default.
  const full = { kind: 'INTERVAL', intervalSeconds: 60, timezone: 'UTC', jitterSeconds: 0, ...schedule } as Schedule;
  return jobDoc(nextRunAt, { schedule: full, misfirePolicy });
}

const horizon = new Date(NOW.getTime() + 30_000);
const threshold = 10_000;

describe('planOccurrences', () => {
  it('plans on-time occurrences up to the horizon as SCHEDULE and advances the cursor past it', () => {
    const plan = planOccurrences(job({ intervalSeconds: 10 }, at('2030-01-01T11:59:55.000Z')), NOW, horizon, threshold);
    expect(plan.occurrences.map((o) => [o.nominal.toISOString(), o.trigger, o.skippedReason])).toEqual([
      ['2030-01-01T11:59:55.000Z', 'SCHEDULE', null],
      ['2030-01-01T12:00:05.000Z', 'SCHEDULE', null],
      ['2030-01-01T12:00:15.000Z', 'SCHEDULE', null],
      ['2030-01-01T12:00:25.000Z', 'SCHEDULE', null],
    ]);
    expect(plan.scheduleCursor?.toISOString()).toBe('2030-01-01T12:00:35.000Z');
    expect(plan.status).toBe('ACTIVE');
  });

  it('RUN_ONCE: one CATCH_UP due now for the last missed occurrence, the earlier ones SKIPPED', () => {
    const plan = planOccurrences(job({}, at('2030-01-01T11:57:00.000Z')), NOW, horizon, threshold);
    expect(
      plan.occurrences.map((o) => [o.nominal.toISOString(), o.trigger, o.dueAt?.toISOString() ?? null, o.skippedReason !== null]),
    ).toEqual([
      ['2030-01-01T11:57:00.000Z', 'SCHEDULE', '2030-01-01T11:57:00.000Z', true],
      ['2030-01-01T11:58:00.000Z', 'SCHEDULE', '2030-01-01T11:58:00.000Z', true],
      ['2030-01-01T11:59:00.000Z', 'CATCH_UP', NOW.toISOString(), false],
      // 12:00:00 is not older than the threshold: it runs on time.
      ['2030-01-01T12:00:00.000Z', 'SCHEDULE', null, false],
    ]);
  });

  it('RUN_ALL runs every missed occurrence as CATCH_UP; SKIP records them all SKIPPED', () => {
    const all = planOccurrences(job({}, at('2030-01-01T11:58:00.000Z'), 'RUN_ALL'), NOW, horizon, threshold);
    expect(all.occurrences.map((o) => o.trigger)).toEqual(['CATCH_UP', 'CATCH_UP', 'SCHEDULE']);
    const skip = planOccurrences(job({}, at('2030-01-01T11:58:00.000Z'), 'SKIP'), NOW, horizon, threshold);
    expect(skip.occurrences.map((o) => o.skippedReason)).toEqual([
      'missed while the scheduler was down (misfire policy SKIP)',
      'missed while the scheduler was down (misfire policy SKIP)',
      null,
    ]);
  });

  it('records at most 100 missed occurrences of a long gap and jumps the rest on the schedule grid', () => {
    // A one-second interval down for a day: 86,400 missed occurrences.
    const plan = planOccurrences(
      job({ intervalSeconds: 1 }, at('2029-12-31T12:00:00.500Z'), 'SKIP'),
      NOW,
      new Date(NOW.getTime() + 1000),
      threshold,
    );
    const skipped = plan.occurrences.filter((o) => o.skippedReason);
    expect(skipped).toHaveLength(MAX_MISSED_RECORDED);
    const onTime = plan.occurrences.filter((o) => !o.skippedReason);
    // Resumes at the first grid point (x.500) not older than now - 10 s.
    expect(onTime[0].nominal.toISOString()).toBe('2030-01-01T11:59:50.500Z');
    expect(onTime.every((o) => o.nominal.getUTCMilliseconds() === 500)).toBe(true);
  });

  it('treats nothing as missed when the threshold is Infinity (create time)', () => {
    const plan = planOccurrences(
      job({ kind: 'ONCE', runAt: at('2030-01-01T11:59:30.000Z') }, at('2030-01-01T11:59:30.000Z')),
      NOW,
      horizon,
      Infinity,
    );
    expect(plan.occurrences.map((o) => o.trigger)).toEqual(['SCHEDULE']);
    expect(plan).toMatchObject({ scheduleCursor: null, status: 'COMPLETED' });
  });
});
