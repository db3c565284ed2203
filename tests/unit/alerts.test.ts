// Covers: src/domain/alertPayload.ts, src/domain/alertSink.ts, src/alerts/alertEvaluator.ts, src/alerts/alertSettings.ts
import { describe, expect, it } from '@jest/globals';
import { ObjectId } from 'mongodb';
import type { ActiveAlertRule, AlertDoc } from '../../src/domain/alert.js';
import { alertBody } from '../../src/domain/alertPayload.js';
import { reportEnds } from '../../src/domain/alertSink.js';
import { AlertEvaluator } from '../../src/alerts/alertEvaluator.js';
import type { AlertEvent } from '../../src/alerts/alertStates.js';
import { thresholdOf } from '../../src/alerts/alertSettings.js';
import { silentLogger } from '../support/workerFakes.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const JOB = '650000000000000000000002';
const EXECUTION = '650000000000000000000001';

function activeRule(kind: ActiveAlertRule['rule']['kind'], threshold: number, jobId: string | null = null): ActiveAlertRule {
  const channel = {
    _id: new ObjectId(),
    tenantId: 'acme',
    name: 'ops',
    url: 'https://hooks.example/ops',
    format: 'KAIROS' as const,
    createdAt: NOW,
  };
  return {
    channel,
    rule: {
      _id: new ObjectId(),
      tenantId: 'acme',
      channelId: channel._id,
      jobId: jobId ? new ObjectId(jobId) : null,
      kind,
      threshold,
      createdAt: NOW,
    },
  };
}

/** The evaluator over fakes: `changes` says which rules the state script reports changed. */
function setup(rules: ActiveAlertRule[], options: { allowed?: number; changes?: (event: AlertEvent) => string[] } = {}) {
  const reads: string[] = [];
  const applied: { event: AlertEvent; rules: string[] }[] = [];
  const inserted: AlertDoc[] = [];
  const queued: AlertDoc[] = [];
  let clock = NOW.getTime();
  const evaluator = new AlertEvaluator(
    {
      records: {
        rulesOf: async (tenantId) => {
          reads.push(tenantId);
          return rules;
        },
        insert: async (alerts) => void inserted.push(...alerts),
      },
      states: {
        apply: async (_tenant, _job, event, given) => {
          applied.push({ event, rules: given.map((r) => r._id.toHexString()) });
          const states: Record<AlertEvent, string> = { FAILED: 'FAILING', SUCCEEDED: 'RECOVERED', SKIPPED: 'SKIPPED', OVERDUE: 'OVERDUE' };
          return (options.changes?.(event) ?? []).map((ruleId) => ({ ruleId, state: states[event] as AlertDoc['state'] }));
        },
      },
      rateLimiter: { takeUpTo: async (_bucket, _tenant, _perMinute, wanted) => Math.min(wanted, options.allowed ?? wanted) },
      deliveries: { enqueue: async (alerts) => void queued.push(...alerts) },
      clock: () => new Date(clock),
      logger: silentLogger(),
    },
    { rulesCacheMs: 10_000, perMinute: 60 },
  );
  const end = (status: 'FAILED' | 'SUCCEEDED' | 'SKIPPED', reason: string | null = null) =>
    evaluator.ended({ tenantId: 'acme', jobId: JOB, executionId: EXECUTION, status, reason, at: NOW });
  return { evaluator, end, reads, applied, inserted, queued, advance: (ms: number) => (clock += ms) };
}

describe('the alert evaluator', () => {
  it("applies an end to the job's rules (its own and the tenant-wide ones), reading the rules once per cache period", async () => {
    const all = activeRule('CONSECUTIVE_FAILURES', 3);
    const mine = activeRule('SKIPPED', 1, JOB);
    const other = activeRule('SKIPPED', 1, '650000000000000000000009');
    const { evaluator, end, reads, applied, advance } = setup([all, mine, other]);
    end('FAILED');
    end('SUCCEEDED');
    await evaluator.close();
    expect(reads).toEqual(['acme']);
    const ids = [all.rule._id.toHexString(), mine.rule._id.toHexString()];
    expect(applied).toEqual([
      { event: 'FAILED', rules: ids },
      { event: 'SUCCEEDED', rules: ids },
    ]);
    advance(10_000);
    end('FAILED');
    await evaluator.close();
    expect(reads).toEqual(['acme', 'acme']);
  });

  it('writes nothing while no rule changes state', async () => {
    const { evaluator, end, inserted, queued } = setup([activeRule('CONSECUTIVE_FAILURES', 3)]);
    end('FAILED');
    await evaluator.close();
    expect(inserted).toEqual([]);
    expect(queued).toEqual([]);
  });

  it('costs a tenant without rules no state call', async () => {
    const { evaluator, end, applied } = setup([]);
    end('FAILED');
    await evaluator.close();
    expect(applied).toEqual([]);
  });

  it("records a changed rule's alert and queues its delivery; past the tenant's rate it is recorded RATE_LIMITED and not sent", async () => {
    const a = activeRule('SKIPPED', 1);
    const b = activeRule('SKIPPED', 1);
    const { evaluator, end, inserted, queued } = setup([a, b], {
      allowed: 1,
      changes: () => [a.rule._id.toHexString(), b.rule._id.toHexString()],
    });
    end('SKIPPED', 'misfire policy SKIP');
    await evaluator.close();
    expect(inserted.map((x) => [x.state, x.reason, x.delivery.status])).toEqual([
      ['SKIPPED', 'misfire policy SKIP', 'PENDING'],
      ['SKIPPED', 'misfire policy SKIP', 'RATE_LIMITED'],
    ]);
    expect(queued.map((x) => x.ruleId)).toEqual([a.rule._id]);
    expect(inserted[0]).toMatchObject({ tenantId: 'acme', jobId: new ObjectId(JOB), executionId: new ObjectId(EXECUTION), raisedAt: NOW });
  });

  it('raises OVERDUE only for rules whose threshold the entry passed, and says the smallest threshold', async () => {
    const soon = activeRule('OVERDUE', 5);
    const later = activeRule('OVERDUE', 60);
    const { evaluator, applied, inserted } = setup([soon, later, activeRule('SKIPPED', 1)], {
      changes: () => [soon.rule._id.toHexString()],
    });
    expect(await evaluator.overdueThresholdMs('acme', JOB)).toBe(5000);
    await evaluator.overdue({ tenantId: 'acme', jobId: JOB, executionId: EXECUTION, dueAt: new Date(NOW.getTime() - 7000) }, NOW);
    expect(applied).toEqual([{ event: 'OVERDUE', rules: [soon.rule._id.toHexString()] }]);
    expect(inserted[0].reason).toBe('due at 2026-03-01T11:59:53.000Z, not started 7 s later');
  });

  it('never throws: a failed read of the rules is logged and read again at the next end', async () => {
    const { evaluator, reads } = setup([]);
    let fail = true;
    const failing = new AlertEvaluator(
      {
        ...(evaluator as unknown as { deps: ConstructorParameters<typeof AlertEvaluator>[0] }).deps,
        records: {
          rulesOf: async (t) => {
            reads.push(t);
            if (fail) throw new Error('MongoDB unreachable');
            return [];
          },
          insert: async () => undefined,
        },
      },
      { rulesCacheMs: 10_000, perMinute: 60 },
    );
    const end = { tenantId: 'acme', jobId: JOB, executionId: EXECUTION, status: 'FAILED' as const, reason: null, at: NOW };
    expect(() => failing.ended(end)).not.toThrow();
    await failing.close();
    fail = false;
    failing.ended(end);
    await failing.close();
    expect(reads).toEqual(['acme', 'acme']);
  });
});

describe('reportEnds', () => {
  it('tells the sink of SUCCEEDED, FAILED and SKIPPED ends only, and does nothing without a sink', () => {
    const told: string[] = [];
    const base = { tenantId: 'acme', jobId: JOB, executionId: EXECUTION, reason: null, at: NOW, trigger: 'SCHEDULE' as const };
    const ends = (['SUCCEEDED', 'RETRYING', 'FAILED', 'CANCELLED', 'SKIPPED'] as const).map((status) => ({ ...base, status }));
    reportEnds({ ended: (e) => told.push(e.status) }, ends);
    reportEnds(undefined, ends);
    expect(told).toEqual(['SUCCEEDED', 'FAILED', 'SKIPPED']);
  });

  it('leaves out BACKFILL ends: a replay of the past neither raises FAILING nor ends a live streak', () => {
    const told: string[] = [];
    const base = { tenantId: 'acme', jobId: JOB, executionId: EXECUTION, reason: null, at: NOW };
    reportEnds({ ended: (e) => told.push(`${e.status}`) }, [
      { ...base, status: 'FAILED', trigger: 'BACKFILL' },
      { ...base, status: 'SUCCEEDED', trigger: 'BACKFILL' },
      { ...base, status: 'SUCCEEDED', trigger: 'MANUAL' },
    ]);
    expect(told).toEqual(['SUCCEEDED']);
  });
});

describe('thresholdOf', () => {
  it('takes failures in a row, seconds past due, and none for SKIPPED', () => {
    expect(thresholdOf('CONSECUTIVE_FAILURES', 3)).toBe(3);
    expect(thresholdOf('OVERDUE', 604_800)).toBe(604_800);
    expect(thresholdOf('SKIPPED', null)).toBe(1);
  });

  it('refuses a missing, fractional or out-of-range threshold, naming the range', () => {
    expect(() => thresholdOf('CONSECUTIVE_FAILURES', undefined)).toThrow(
      'A CONSECUTIVE_FAILURES rule needs a threshold of 1 to 1000 failed executions in a row',
    );
    expect(() => thresholdOf('CONSECUTIVE_FAILURES', 1001)).toThrow(/1 to 1000/);
    expect(() => thresholdOf('OVERDUE', 1.5)).toThrow('A OVERDUE rule needs a threshold of 1 to 604800 seconds past due');
    expect(() => thresholdOf('SKIPPED', 2)).toThrow('A SKIPPED rule takes no threshold');
  });
});

describe('alertBody', () => {
  const ids = { alertId: 'QWxlcnQ6MQ', jobId: 'Sm9iOjE', executionId: 'RXhlY3V0aW9uOjE', ruleId: 'QWxlcnRSdWxlOjE' };
  const alert = (format: 'KAIROS' | 'SLACK'): AlertDoc => ({
    _id: new ObjectId(),
    tenantId: 'acme',
    ruleId: new ObjectId(),
    channelId: new ObjectId(),
    jobId: new ObjectId(JOB),
    executionId: new ObjectId(EXECUTION),
    kind: 'CONSECUTIVE_FAILURES',
    state: 'FAILING',
    reason: '3 consecutive failed executions',
    raisedAt: NOW,
    channel: { url: 'https://hooks.example/ops', format },
    delivery: { status: 'PENDING', attempts: 0, statusCode: null, error: null, deliveredAt: null },
  });

  it("is Kairos' JSON with the API's ids", () => {
    expect(JSON.parse(alertBody(alert('KAIROS'), ids))).toEqual({
      ...ids,
      tenantId: 'acme',
      kind: 'CONSECUTIVE_FAILURES',
      state: 'FAILING',
      reason: '3 consecutive failed executions',
      raisedAt: '2026-03-01T12:00:00.000Z',
    });
  });

  it('is a Slack-compatible { text } for a SLACK channel', () => {
    expect(JSON.parse(alertBody(alert('SLACK'), ids))).toEqual({
      text: 'Kairos: job Sm9iOjE is failing (execution RXhlY3V0aW9uOjE): 3 consecutive failed executions',
    });
  });
});
