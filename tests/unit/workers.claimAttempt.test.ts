import { describe, expect, it } from '@jest/globals';
import type { ClaimHolder } from '../../src/queue/attemptClaims.js';
import type { ClaimRequest } from '../../src/store/runStore.js';
import { claimAttempt, type ClaimDeps } from '../../src/workers/claimAttempt.js';
import { DeferredClaims } from '../../src/workers/deferredClaims.js';
import { afterT0, queuedRun } from '../support/executionFixtures.js';
import { publishedEvents, silentLogger } from '../support/workerFakes.js';

const STARTED = afterT0(2500);

const run = (attempt = 0) => queuedRun(attempt === 0 ? {} : { status: 'RETRYING', attempt });

interface Setup {
  /** Whether the Redis claim is free. */
  free?: boolean;
  /** What the start's compare-and-set (written at once) answers, or that it fails. */
  claimed?: boolean | 'fails';
}

/** claimAttempt over fakes of its ports (the real DeferredClaims, writing starts at once, over a fake store). */
function setup(options: Setup = {}) {
  const calls: string[] = [];
  const requests: ClaimRequest[] = [];
  const holders: { holder: ClaimHolder; ttlMs: number }[] = [];
  const { events, published } = publishedEvents(() => calls.push('publish'));
  const lags: number[] = [];
  const starts = new DeferredClaims(
    {
      claim: async (request) => {
        requests.push(request);
        calls.push('write start');
        if (options.claimed === 'fails') throw new Error('MongoDB unreachable');
        return { claimed: options.claimed ?? true };
      },
    },
    0,
  );
  const deps: ClaimDeps = {
    claims: {
      take: async (executionId, attempt, holder, ttlMs) => {
        calls.push(`take claim ${executionId}:${attempt}`);
        holders.push({ holder, ttlMs });
        return options.free ?? true;
      },
      drop: async (executionId, attempt) => {
        calls.push(`drop claim ${executionId}:${attempt}`);
      },
    },
    starts,
    queues: { leftWaiting: (_workload, _tenantId, entryId) => calls.push(`left waiting ${entryId}`) },
    events,
    runStore: { noteJobRun: (_tenantId, _jobId, at) => calls.push(`job ran at ${at.toISOString()}`) },
    metrics: { attemptStarted: (lagMs) => lags.push(lagMs) },
    clock: () => STARTED,
    logger: silentLogger(),
    workerId: 'worker-1',
    queueLockMs: 30_000,
  };
  return { deps, calls, requests, holders, events: published, lags };
}

describe('claimAttempt: the Redis claim, then the start through the startAttempt transition', () => {
  it('claims the next attempt, writes its start, leaves the waiting ones and announces RUNNING', async () => {
    const { deps, calls, requests, holders, events, lags } = setup();
    const started = await claimAttempt(deps, run(), 10_000, 'entry-1');
    expect(started).toMatchObject({ number: 1, startedAt: STARTED });
    expect(calls).toEqual([
      'take claim 650000000000000000000001:1',
      'write start',
      'left waiting entry-1',
      'publish',
      `job ran at ${STARTED.toISOString()}`,
    ]);
    // The claim outlives the attempt, its end's retries while MongoDB is down and a takeover's look for a dead holder.
    expect(holders).toEqual([
      {
        holder: { workerId: 'worker-1', startedAt: STARTED, deadlineAt: new Date(STARTED.getTime() + 40_000) },
        ttlMs: 10_000 + 120_000 + 60_000 + 30_000,
      },
    ]);
    expect(requests).toEqual([
      { id: run()._id, from: { status: 'QUEUED', attempt: 0 }, workerId: 'worker-1', startedAt: STARTED, deadlineAfterMs: 40_000 },
    ]);
    expect(events).toEqual([
      {
        tenantId: 'acme',
        executionId: '650000000000000000000001',
        jobId: '650000000000000000000002',
        previousStatus: 'QUEUED',
        status: 'RUNNING',
        occurredAt: STARTED.toISOString(),
        attempt: { number: 1, workerId: 'worker-1' },
      },
    ]);
    // Start lag: from when it was due to the first attempt's start.
    expect(lags).toEqual([2500]);
    expect(await started?.claim.settle()).toBe(true);
  });

  it("a later attempt notes no job run and no start lag (the execution's start was its first attempt's)", async () => {
    const { deps, calls, lags, events } = setup();
    const started = await claimAttempt(deps, run(1), 10_000, 'entry-1');
    expect(started?.number).toBe(2);
    expect(events[0]).toMatchObject({ previousStatus: 'RETRYING', status: 'RUNNING', attempt: { number: 2 } });
    expect(calls.some((c) => c.startsWith('job ran'))).toBe(false);
    expect(lags).toEqual([]);
  });

  it("a backfilled execution's start observes no start lag: it is due at a past occurrence by design", async () => {
    const { deps, calls, lags } = setup();
    const started = await claimAttempt(deps, queuedRun({ trigger: 'BACKFILL' }), 10_000, 'entry-1');
    expect(started?.number).toBe(1);
    expect(calls.some((c) => c.startsWith('job ran'))).toBe(true);
    expect(lags).toEqual([]);
  });

  it('does nothing when another delivery holds the claim', async () => {
    const { deps, calls, events } = setup({ free: false });
    expect(await claimAttempt(deps, run(), 10_000, 'entry-1')).toBeNull();
    expect(calls).toEqual(['take claim 650000000000000000000001:1']);
    expect(events).toEqual([]);
  });

  it('a stale picture (the start missed) gives the claim back and announces nothing', async () => {
    const { deps, calls, events, lags } = setup({ claimed: false });
    expect(await claimAttempt(deps, run(), 10_000, 'entry-1')).toBeNull();
    expect(calls).toEqual(['take claim 650000000000000000000001:1', 'write start', 'drop claim 650000000000000000000001:1']);
    expect(events).toEqual([]);
    expect(lags).toEqual([]);
  });

  it('a start that fails gives the claim back, so a redelivery does not find it taken, and fails', async () => {
    const { deps, calls } = setup({ claimed: 'fails' });
    await expect(claimAttempt(deps, run(), 10_000, 'entry-1')).rejects.toThrow('MongoDB unreachable');
    expect(calls).toEqual(['take claim 650000000000000000000001:1', 'write start', 'drop claim 650000000000000000000001:1']);
  });
});
