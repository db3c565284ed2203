// Covers: src/transitions/skipOccurrences.ts
import { describe, expect, it } from '@jest/globals';
import { ObjectId } from 'mongodb';
import type { Schedule } from '../../src/domain/job.js';
import { skippedOccurrences } from '../../src/domain/skippedOccurrences.js';
import { groupSkips, RESCHEDULE_MARGIN_MS, singlyUntil, skipRecord, trimSkip } from '../../src/scheduler/budgetSkips.js';
import { overBudgetReason, recountedReason } from '../../src/quotas/scheduledBudget.js';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const everySecond: Schedule = { kind: 'INTERVAL', intervalSeconds: 1, timezone: 'UTC', jitterSeconds: 0 };
const scheduled = (...seconds: number[]) => seconds.map((s) => ({ nominal: at(s), trigger: 'SCHEDULE' as const }));

describe('groupSkips: occurrences past the budget into records', () => {
  it('makes one record of consecutive occurrences, however many', () => {
    expect(groupSkips(everySecond, scheduled(5, 6, 7, 8, 9), null)).toEqual([{ trigger: 'SCHEDULE', first: at(5), last: at(9), count: 5 }]);
  });

  it('starts a new record where the schedule has an occurrence in between (a gap jumped over) or the trigger changes', () => {
    const catchUps = [0, 1].map((s) => ({ nominal: at(s), trigger: 'CATCH_UP' as const }));
    expect(groupSkips(everySecond, [...catchUps, ...scheduled(2, 3, 10, 11)], null)).toEqual([
      { trigger: 'CATCH_UP', first: at(0), last: at(1), count: 2 },
      { trigger: 'SCHEDULE', first: at(2), last: at(3), count: 2 },
      { trigger: 'SCHEDULE', first: at(10), last: at(11), count: 2 },
    ]);
  });

  it('follows the schedule, not a fixed step: a cron every 15 s', () => {
    const cron: Schedule = { kind: 'CRON', cron: '*/15 * * * * *', timezone: 'UTC', jitterSeconds: 0 };
    expect(groupSkips(cron, scheduled(0, 15, 30, 45), null)).toEqual([{ trigger: 'SCHEDULE', first: at(0), last: at(45), count: 4 }]);
  });

  it('gives each occurrence up to `singly` a record of its own, and groups the ones after it', () => {
    expect(groupSkips(everySecond, scheduled(5, 6, 7, 8, 9), at(6))).toEqual([
      { trigger: 'SCHEDULE', first: at(5), last: at(5), count: 1 },
      { trigger: 'SCHEDULE', first: at(6), last: at(6), count: 1 },
      { trigger: 'SCHEDULE', first: at(7), last: at(9), count: 3 },
    ]);
  });

  it('has no record for no skip', () => {
    expect(groupSkips(everySecond, [], null)).toEqual([]);
  });
});

describe('singlyUntil: after a job is rescheduled', () => {
  it('is null for a job never rescheduled, else the change plus the pass reach ahead plus the margin', () => {
    expect(singlyUntil({}, at(0), at(45))).toBeNull();
    expect(singlyUntil({ rescheduledAt: at(100) }, at(200), at(245))).toEqual(new Date(at(145).getTime() + RESCHEDULE_MARGIN_MS));
  });
});

describe('skipRecord and trimSkip', () => {
  const job = {
    _id: new ObjectId('6b0000000000000000000002'),
    tenantId: 't',
    workload: 'IO_BOUND' as const,
    retryPolicy: { maxAttempts: 3, initialBackoffSeconds: 1, maxBackoffSeconds: 60, backoffMultiplier: 2 },
  };
  const record = skipRecord(job, { trigger: 'SCHEDULE', first: at(5), last: at(9), count: 5 }, 'key@5', 7, 3, at(1));

  it('records the group as one SKIPPED execution at its first occurrence, with the count, the last and the reason', () => {
    expect(record).toMatchObject({
      tenantId: 't',
      jobId: job._id,
      occurrenceKey: 'key@5',
      status: 'SKIPPED',
      scheduledFor: at(5),
      skippedCount: 5,
      skippedUntil: at(9),
      finishedAt: at(1),
      fencingToken: 3,
      reason:
        "5 occurrences from 2030-01-01T00:00:05.000Z to 2030-01-01T00:00:09.000Z over the tenant's budget of 7 scheduled executions per minute (maxExecutionsPerMinute)",
    });
    expect(skippedOccurrences(everySecond, record)).toEqual([at(5), at(6), at(7), at(8), at(9)]);
  });

  it('cuts a record to the occurrences before an instant, drops one with none left, and leaves one entirely before it', () => {
    expect(trimSkip(everySecond, record, at(7))).toEqual({
      skippedCount: 2,
      skippedUntil: at(6),
      reason:
        "2 occurrences from 2030-01-01T00:00:05.000Z to 2030-01-01T00:00:06.000Z over the tenant's budget of 7 scheduled executions per minute (maxExecutionsPerMinute)",
    });
    expect(trimSkip(everySecond, record, at(6))).toEqual({ skippedCount: 1, skippedUntil: at(5), reason: overBudgetReason(7) });
    expect(trimSkip(everySecond, record, at(5))).toBe('gone');
    expect(trimSkip(everySecond, record, at(10))).toBeNull();
    expect(trimSkip(everySecond, { ...record, skippedCount: undefined, skippedUntil: undefined }, at(0))).toBeNull();
  });
});

describe('the budget reason', () => {
  it('names the budget alone for one occurrence, the count and range for several, and restates a cut record', () => {
    expect(overBudgetReason(5)).toBe("over the tenant's budget of 5 scheduled executions per minute (maxExecutionsPerMinute)");
    const three = overBudgetReason(5, 3, at(0), at(2));
    expect(three).toBe(
      "3 occurrences from 2030-01-01T00:00:00.000Z to 2030-01-01T00:00:02.000Z over the tenant's budget of 5 scheduled executions per minute (maxExecutionsPerMinute)",
    );
    expect(recountedReason(three, 2, at(0), at(1))).toBe(overBudgetReason(5, 2, at(0), at(1)));
    expect(recountedReason(three, 1, at(0), at(0))).toBe(overBudgetReason(5));
  });
});

describe('skippedOccurrences', () => {
  it('stops where the schedule ends, so a record longer than its schedule does not match it', () => {
    const ending: Schedule = { ...everySecond, endAt: at(6) };
    expect(skippedOccurrences(ending, { scheduledFor: at(5), skippedCount: 4 })).toEqual([at(5), at(6)]);
    expect(skippedOccurrences(everySecond, { scheduledFor: at(5) })).toEqual([]);
  });
});
