import { describe, expect, it } from '@jest/globals';
import { ObjectId } from 'mongodb';
import { checkRun, type CheckedExecution, type CheckInput } from '../../tools/chaos/checkRun.js';
import type { AttemptOutcome } from '../../src/domain/execution.js';
import type { Delivery } from '../../tools/chaos/flakyReceiver.js';
import { toGlobalId } from '../../src/ids/globalId.js';

const T0 = new Date('2026-12-02T10:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const job = {
  _id: new ObjectId('6b0000000000000000000001'),
  createdAt: T0,
  schedule: { kind: 'INTERVAL' as const, intervalSeconds: 10, timezone: 'UTC', jitterSeconds: 0 },
};

function execution(
  seconds: number,
  outcomes: (AttemptOutcome | null)[],
  status: CheckedExecution['status'] = 'SUCCEEDED',
): CheckedExecution {
  return {
    _id: new ObjectId(),
    jobId: job._id,
    occurrenceKey: `${job._id.toHexString()}@${at(seconds).toISOString()}`,
    trigger: 'SCHEDULE',
    status,
    scheduledFor: at(seconds),
    attempt: outcomes.length,
    nextAttemptAt: null,
    attempts: outcomes.map((outcome, i) => ({
      number: i + 1,
      outcome,
      startedAt: at(seconds + i),
      finishedAt: outcome ? at(seconds + i) : null,
      error: null,
      httpStatus: null,
      workerId: 'w',
    })),
  };
}
const delivery = (e: CheckedExecution, attempt: number, response: Delivery['response'] = 200, more: Partial<Delivery> = {}): Delivery => ({
  idempotencyKey: toGlobalId('Execution', e._id),
  attempt,
  at: e.scheduledFor.getTime() + attempt,
  response,
  inFlight: 1,
  path: '/hook',
  ...more,
});

const FLOW = { path: '/limited', maxConcurrent: 2, forgotten: [] as [Date, Date][] };

/** Occurrences at +10 s, +20 s and +30 s are due by +35 s. */
function check(executions: CheckedExecution[], deliveries: Delivery[] = [], now = at(40), flow = FLOW) {
  const input: CheckInput = { jobs: [job], executions, deliveries, until: at(35), now, pendingGraceMs: 30_000, flow };
  return checkRun(input);
}

describe('checkRun, the chaos verdict', () => {
  it('passes a run where each occurrence ran once and every repeat followed a failure', () => {
    const retried = execution(20, ['FAILED', 'SUCCEEDED']);
    const result = check(
      [execution(10, ['SUCCEEDED']), retried, execution(30, ['SUCCEEDED'])],
      [delivery(retried, 1, 500), delivery(retried, 2)],
    );
    expect(result.violations).toEqual([]);
    expect(result.counts).toEqual(
      expect.objectContaining({ occurrences: 3, executions: 3, succeeded: 3, attempts: 4, deliveries: 2, lost: 0 }),
    );
  });

  it('reports an occurrence without an execution as lost, and one with two as doubled', () => {
    const result = check([execution(10, ['SUCCEEDED']), execution(10, ['SUCCEEDED'])]);
    expect(result.counts.lost).toBe(2);
    expect(result.counts.doubled).toBe(1);
    expect(result.violations).toEqual(
      expect.arrayContaining([expect.stringMatching(/^lost: .*10:00:20/), expect.stringMatching(/^doubled: .*10:00:10/)]),
    );
  });

  it('reports an execution off the schedule, and gaps or open attempts in the attempt list', () => {
    const off = execution(15, ['SUCCEEDED']);
    const gap = { ...execution(20, ['FAILED', 'SUCCEEDED']), attempt: 3 };
    const open = execution(30, [null, 'SUCCEEDED']);
    const result = check([execution(10, ['SUCCEEDED']), off, gap, open]);
    expect(result.violations).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^unexpected: .*10:00:15/),
        expect.stringMatching(/^attempts: .* but attempt 3/),
        expect.stringMatching(/without an outcome/),
      ]),
    );
  });

  it('tells a legitimately pending execution from one stuck past the grace', () => {
    const retrying = { ...execution(30, ['FAILED'], 'RETRYING'), nextAttemptAt: at(38) };
    expect(check([execution(10, ['SUCCEEDED']), execution(20, ['SUCCEEDED']), retrying]).counts.pending).toBe(1);
    const stuck = check([execution(10, ['SUCCEEDED']), execution(20, ['SUCCEEDED']), retrying], [], at(120));
    expect(stuck.violations).toEqual([expect.stringMatching(/^unfinished: .* still RETRYING/)]);
  });

  it('flags deliveries MongoDB has no attempt for, the same attempt delivered twice, and a repeat after a success', () => {
    const e = execution(10, ['SUCCEEDED']);
    const result = check([e, execution(20, ['SUCCEEDED']), execution(30, ['SUCCEEDED'])], [delivery(e, 1), delivery(e, 1), delivery(e, 2)]);
    expect(result.violations).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^redelivered: .* attempt 1 reached the target twice/),
        expect.stringMatching(/^unrecorded: .* attempt 2/),
        expect.stringMatching(/^repeated: .* after attempt 1 ended SUCCEEDED/),
      ]),
    );
  });

  it('accepts a delivery repeated after a 2xx only when the earlier attempt was recorded CRASHED', () => {
    const crashed = execution(10, ['CRASHED', 'SUCCEEDED']);
    const failed = execution(20, ['FAILED', 'SUCCEEDED']);
    const result = check(
      [crashed, failed, execution(30, ['SUCCEEDED'])],
      [delivery(crashed, 1), delivery(crashed, 2), delivery(failed, 1), delivery(failed, 2)],
    );
    expect(result.counts.duplicateDeliveries).toBe(2);
    expect(result.violations).toEqual([expect.stringMatching(/^duplicate: .* attempt 1 is FAILED, not CRASHED/)]);
  });

  it('judges a repeat by the delivery just before it: a crash answered 2xx, then a failure, then a retry', () => {
    const e = execution(10, ['CRASHED', 'FAILED', 'SUCCEEDED']);
    const result = check(
      [e, execution(20, ['SUCCEEDED']), execution(30, ['SUCCEEDED'])],
      [delivery(e, 1), delivery(e, 2, 500), delivery(e, 3)],
    );
    expect(result.violations).toEqual([]);
    expect(result.counts.duplicateDeliveries).toBe(1);
  });
  it('expands a SKIPPED budget record into the occurrences it stands for: none lost, and one it repeats is doubled', () => {
    const record = (seconds: number, count: number, until: number): CheckedExecution => ({
      ...execution(seconds, [], 'SKIPPED'),
      skippedCount: count,
      skippedUntil: at(until),
    });
    const covered = check([execution(10, ['SUCCEEDED']), record(20, 2, 30)]);
    expect(covered.violations).toEqual([]);
    expect(covered.counts).toEqual(expect.objectContaining({ occurrences: 3, executions: 3, lost: 0, doubled: 0, skippedRecords: 1 }));

    const overlapping = check([execution(10, ['SUCCEEDED']), record(10, 2, 20), execution(30, ['SUCCEEDED'])]);
    expect(overlapping.violations).toEqual([expect.stringMatching(/^doubled: .*10:00:10.* has 2 executions/)]);

    const offSchedule = check([execution(10, ['SUCCEEDED']), record(20, 2, 25)]);
    expect(offSchedule.violations).toEqual([expect.stringMatching(/^unexpected: SKIPPED record .* 2 occurrences to .*10:00:25/)]);
  });

  it("flags a retry that came sooner than a recorded 429's Retry-After, not one after a crash", () => {
    const obeyed = execution(10, ['FAILED', 'SUCCEEDED']);
    const early = execution(20, ['FAILED', 'SUCCEEDED']);
    const crashed = execution(30, ['CRASHED', 'SUCCEEDED']);
    const result = check(
      [obeyed, early, crashed],
      [
        delivery(obeyed, 1, 429),
        delivery(obeyed, 2, 200, { at: obeyed.scheduledFor.getTime() + 2001 }),
        delivery(early, 1, 429),
        delivery(early, 2, 200, { at: early.scheduledFor.getTime() + 1500 }),
        delivery(crashed, 1, 429),
        delivery(crashed, 2, 200, { at: crashed.scheduledFor.getTime() + 10 }),
      ],
    );
    expect(result.violations).toEqual([expect.stringMatching(/^retry-after: .* attempt 2 came 1499 ms after a 429 asking for 2 s/)]);
    expect(result.counts.tooManyRequests).toBe(3);
  });

  it('flags more requests in flight on the flow-controlled path than its maxConcurrent, except just after Redis lost its data', () => {
    const one = execution(10, ['SUCCEEDED']);
    const two = execution(20, ['SUCCEEDED']);
    const deliveries = [
      delivery(one, 1, 200, { path: '/hook/limited', inFlight: 3 }),
      delivery(two, 1, 200, { path: '/hook/limited', inFlight: 2 }),
    ];
    const result = check([one, two, execution(30, ['SUCCEEDED'])], deliveries);
    expect(result.violations).toEqual([expect.stringMatching(/^flow control: 3 requests in flight at .* with maxConcurrent 2/)]);
    expect(result.counts.flowPeak).toBe(3);
    const forgiven = check([one, two, execution(30, ['SUCCEEDED'])], deliveries, at(40), { ...FLOW, forgotten: [[at(5), at(15)]] });
    expect(forgiven.violations).toEqual([]);
  });
});
