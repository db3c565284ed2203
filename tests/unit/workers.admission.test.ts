import { describe, expect, it } from '@jest/globals';
import type { ExecutionDoc } from '../../src/domain/execution.js';
import type { OverlapPolicy } from '../../src/domain/job.js';
import type { SlotResult } from '../../src/quotas/concurrencyLimiter.js';
import type { FlowTake } from '../../src/quotas/flowLimiter.js';
import { admit, type Admission, type AdmissionDeps, type AdmittedRun } from '../../src/workers/admission.js';
import type { OverlapDecision } from '../../src/workers/overlapGuard.js';
import { TenantShare } from '../../src/workers/tenantShare.js';
import { jobSnapshot, queuedRun, T0 } from '../support/executionFixtures.js';
import { silentLogger } from '../support/workerFakes.js';

const run: AdmittedRun = queuedRun();

const job = (overlapPolicy: OverlapPolicy = 'SKIP') => jobSnapshot({ overlapPolicy });

interface Setup {
  /** What the tenant slot's take answers. */
  slot?: SlotResult;
  /** What the overlap guard decides, one per call (then 'run'). */
  decisions?: OverlapDecision[];
  /** Whether MongoDB has the execution RUNNING (a delivery elsewhere runs it), or cannot be read. */
  running?: boolean | 'unreachable';
  /** The execution BUFFER_ONE held back, which the job slot's release hands back. */
  buffered?: string | null;
  /** What the flow-control key's take answers. */
  flow?: FlowTake;
}

/** Admission over fakes of its ports; `calls` is what they were asked, in order. */
function setup(options: Setup = {}) {
  const calls: string[] = [];
  const decisions = [...(options.decisions ?? [])];
  const tenantShare = new TenantShare({ IO_BOUND: 1, CPU_BOUND: 1 });
  const deps: AdmissionDeps = {
    tenantShare,
    tenantSlots: {
      take: async (_tenantId, executionId, ttlMs, waiter) => {
        calls.push(`take tenant slot ${executionId} ttl ${ttlMs} waiter ${waiter}`);
        return { slot: options.slot ?? 'new', waiting: 8, limit: 2 };
      },
      release: async (_tenantId, executionId) => {
        calls.push(`release tenant slot ${executionId}`);
        return null;
      },
    },
    flow: {
      take: async (hold, ttlMs, waiter) => {
        calls.push(`take key ${hold.limits.key} start ${hold.startId} ttl ${ttlMs} waiter ${waiter}`);
        return options.flow ?? { kind: 'new' };
      },
      release: async (_tenantId, limits, hold, { began, wake }) => {
        calls.push(
          `release key ${limits.key} ${hold ? hold.executionId : 'none'}${began ? '' : ' and its start'}${wake ? ', waking' : ''}`,
        );
        return null;
      },
    },
    overlap: {
      decide: async (policy) => {
        const decision = decisions.shift() ?? { action: 'run' };
        calls.push(`decide ${policy}: ${decision.action}`);
        return decision;
      },
      release: async (_jobId, executionId) => {
        calls.push(`release job slot ${executionId}`);
        return options.buffered ?? null;
      },
    },
    cancels: {
      cancel: async (executionId) => {
        calls.push(`cancel ${executionId}`);
      },
    },
    queues: {
      promote: async () => false,
      enqueue: async (entries) => {
        calls.push(...entries.map((e) => `enqueue ${e.id} at ${e.dueAt.toISOString()}`));
      },
    },
    runStore: {
      findRunnable: async () => {
        calls.push('read execution');
        if (options.running === 'unreachable') throw new Error('MongoDB unreachable');
        return options.running ? ({ status: 'RUNNING' } as ExecutionDoc) : null;
      },
    },
    metrics: { quotaRefused: (kind) => calls.push(`refused ${kind}`) },
    clock: () => T0,
    random: () => 0,
    logger: silentLogger(),
  };
  const held = () => tenantShare.held('acme', 'IO_BOUND');
  return { deps, calls, held };
}

const entry = { refresh: false, entryId: 'entry-1' };

function leaseOf(admission: Admission) {
  if (admission.kind === 'wait') throw new Error('expected a lease');
  return admission.lease;
}

describe('admission: the tenant share, the tenant slot and the overlap policy, as one lease', () => {
  it('waits, holding nothing, when the tenant has its share of this process', async () => {
    const { deps, calls, held } = setup();
    const first = await admit(deps, run, job(), entry);
    const second = await admit(deps, { ...run, executionId: 'other' }, job(), entry);
    expect(first.kind).toBe('run');
    expect(second).toEqual({ kind: 'wait', redelivery: { at: new Date(T0.getTime() + 500), message: null } });
    expect(calls.filter((c) => c.includes('other'))).toEqual([]);
    expect(held()).toBe(1);
  });

  it('waits when the tenant slot is full, spaced by the tenant queue, and gives the share back', async () => {
    const { deps, calls, held } = setup({ slot: 'full' });
    const admission = await admit(deps, run, job(), { refresh: true, entryId: 'entry-1' });
    expect(admission.kind).toBe('wait');
    // 8 waiting for 2 slots: 500 ms × 4 × 8 / 2 = 8 s; a fresh picture since the delivery read the execution.
    expect(admission.kind === 'wait' && admission.redelivery.at).toEqual(new Date(T0.getTime() + 8000));
    expect(admission.kind === 'wait' && admission.redelivery.message?.run?.status).toBe('QUEUED');
    expect(calls).toEqual([`take tenant slot ${run.executionId} ttl 40000 waiter IO_BOUND/entry-1`, 'refused concurrency']);
    expect(held()).toBe(0);
  });

  it('once the attempt started, release frees the job slot, then the tenant slot, then the share', async () => {
    const { deps, calls, held } = setup({ slot: 'held', buffered: '650000000000000000000009' });
    const lease = leaseOf(await admit(deps, run, job('BUFFER_ONE'), entry));
    lease.attemptStarted();
    calls.length = 0;
    expect(held()).toBe(1);
    await lease.release();
    expect(calls).toEqual([
      `release job slot ${run.executionId}`,
      // The execution BUFFER_ONE held back runs now.
      `enqueue 650000000000000000000009-b at ${T0.toISOString()}`,
      // Held by an earlier delivery of this execution, it is still this delivery's to free once it started.
      `release tenant slot ${run.executionId}`,
    ]);
    expect(held()).toBe(0);
  });

  it('with ALLOW there is no job slot to free', async () => {
    const { deps, calls } = setup();
    const lease = leaseOf(await admit(deps, run, job('ALLOW'), entry));
    lease.attemptStarted();
    calls.length = 0;
    await lease.release();
    expect(calls).toEqual([`release tenant slot ${run.executionId}`]);
  });

  it('unstarted, a new tenant slot goes back unless a delivery running the execution holds it; the job slot stays', async () => {
    const free = setup();
    const lease = leaseOf(await admit(free.deps, run, job(), entry));
    free.calls.length = 0;
    await lease.release();
    expect(free.calls).toEqual(['read execution', `release tenant slot ${run.executionId}`]);

    const elsewhere = setup({ running: true });
    const kept = leaseOf(await admit(elsewhere.deps, run, job(), entry));
    elsewhere.calls.length = 0;
    await kept.release();
    expect(elsewhere.calls).toEqual(['read execution']);
    expect(elsewhere.held()).toBe(0);

    // Unsure (MongoDB unreachable): kept, for the execution's redelivery to take as its own.
    const unsure = setup({ running: 'unreachable' });
    const unsureLease = leaseOf(await admit(unsure.deps, run, job(), entry));
    unsure.calls.length = 0;
    await unsureLease.release();
    expect(unsure.calls).toEqual(['read execution']);
  });

  it('unstarted, a tenant slot an earlier delivery holds stays with it', async () => {
    const { deps, calls } = setup({ slot: 'held' });
    const lease = leaseOf(await admit(deps, run, job(), entry));
    calls.length = 0;
    await lease.release();
    expect(calls).toEqual([]);
  });

  it('giveBack frees the job slot and lets release free the tenant slot without reading again', async () => {
    const { deps, calls } = setup();
    const lease = leaseOf(await admit(deps, run, job(), entry));
    calls.length = 0;
    await lease.giveBack();
    await lease.release();
    expect(calls).toEqual(['read execution', `release job slot ${run.executionId}`, `release tenant slot ${run.executionId}`]);
  });

  it('giveBack leaves both slots to a delivery that runs the execution', async () => {
    const { deps, calls } = setup({ running: true });
    const lease = leaseOf(await admit(deps, run, job(), entry));
    calls.length = 0;
    await lease.giveBack();
    await lease.release();
    expect(calls).toEqual(['read execution']);
  });

  it('a quiet giveBack that fails keeps the tenant slot; a plain one throws and release reads again', async () => {
    const quiet = setup();
    quiet.deps.overlap.release = async () => {
      quiet.calls.push('release job slot fails');
      throw new Error('Redis unreachable');
    };
    const lease = leaseOf(await admit(quiet.deps, run, job(), entry));
    quiet.calls.length = 0;
    await lease.giveBackQuietly();
    await lease.release();
    expect(quiet.calls).toEqual(['read execution', 'release job slot fails']);

    const loud = setup();
    loud.deps.overlap.release = quiet.deps.overlap.release;
    const loudLease = leaseOf(await admit(loud.deps, run, job(), entry));
    loud.calls.length = 0;
    await expect(loudLease.giveBack()).rejects.toThrow('Redis unreachable');
    await loudLease.release();
    expect(loud.calls).toEqual(['read execution', 'read execution', `release tenant slot ${run.executionId}`]);
  });

  it('a skip gives the new tenant slot back at once; the lease holds the share only', async () => {
    const { deps, calls, held } = setup({ decisions: [{ action: 'skip', reason: 'overlap policy SKIP' }] });
    const admission = await admit(deps, run, job(), entry);
    expect(admission).toMatchObject({ kind: 'skip', reason: 'overlap policy SKIP' });
    expect(calls.slice(1)).toEqual(['decide SKIP: skip', `release tenant slot ${run.executionId}`]);
    expect(held()).toBe(1);
    calls.length = 0;
    await leaseOf(admission).release();
    expect(calls).toEqual([]);
    expect(held()).toBe(0);
  });

  it('BUFFER_ONE holds the execution back, keeping a tenant slot an earlier delivery holds', async () => {
    const { deps, calls } = setup({ slot: 'held', decisions: [{ action: 'hold', runningId: 'previous' }] });
    const admission = await admit(deps, run, job('BUFFER_ONE'), entry);
    expect(admission.kind).toBe('hold');
    await leaseOf(admission).release();
    expect(calls.slice(1)).toEqual(['decide BUFFER_ONE: hold']);
  });

  it('CANCEL_PREVIOUS cancels the running execution and takes the job slot once it is free', async () => {
    const { deps, calls } = setup({
      decisions: [{ action: 'cancel-previous', runningId: 'previous' }, { action: 'skip', reason: 'still running' }, { action: 'run' }],
    });
    const admission = await admit(deps, run, job('CANCEL_PREVIOUS'), entry);
    expect(admission.kind).toBe('run');
    expect(calls.slice(1)).toEqual(['decide CANCEL_PREVIOUS: cancel-previous', 'cancel previous', 'decide SKIP: skip', 'decide SKIP: run']);
  });

  it('gives the share back when admission fails', async () => {
    const { deps, held } = setup();
    deps.overlap.decide = async () => {
      throw new Error('Redis unreachable');
    };
    await expect(admit(deps, run, job(), entry)).rejects.toThrow('Redis unreachable');
    expect(held()).toBe(0);
  });
});

describe('admission: a job with flow control takes its key first', () => {
  const flowControl = { key: 'https://api.example', keyFromTarget: true, maxConcurrent: 2, maxPerMinute: null };
  const flowJob = (overlapPolicy: OverlapPolicy = 'ALLOW') => jobSnapshot({ overlapPolicy, flowControl });
  const takeKey = `take key https://api.example start ${run.executionId}:1 ttl 40000 waiter IO_BOUND/entry-1`;

  it('waits for a busy key holding nothing, not even a tenant slot, spaced by the key queue', async () => {
    const { deps, calls, held } = setup({ flow: { kind: 'concurrency', waiting: 6 } });
    const admission = await admit(deps, run, flowJob(), entry);
    // 6 waiting for 2 places: 500 ms × 4 × 6 / 2 = 6 s.
    expect(admission).toEqual({ kind: 'wait', redelivery: { at: new Date(T0.getTime() + 6000), message: null } });
    expect(calls).toEqual([takeKey]);
    expect(held()).toBe(0);
  });

  it("comes back at the next free start when the key's minute is used up", async () => {
    const at = new Date(T0.getTime() + 42_000);
    const { deps, calls } = setup({ flow: { kind: 'rate', waiting: 3, at } });
    const admission = await admit(deps, run, flowJob(), { refresh: true, entryId: 'entry-1' });
    expect(admission.kind === 'wait' && admission.redelivery.at).toEqual(at);
    expect(admission.kind === 'wait' && admission.redelivery.message?.run?.status).toBe('QUEUED');
    expect(calls).toEqual([takeKey]);
  });

  it('gives the key back unwoken, start included, when the tenant slot is full', async () => {
    const { deps, calls, held } = setup({ slot: 'full' });
    const admission = await admit(deps, run, flowJob(), entry);
    expect(admission.kind).toBe('wait');
    expect(calls.slice(1)).toEqual([
      `take tenant slot ${run.executionId} ttl 40000 waiter IO_BOUND/entry-1`,
      'refused concurrency',
      `release key https://api.example ${run.executionId} and its start`,
    ]);
    expect(held()).toBe(0);
  });

  it('once the attempt started, release frees the tenant slot and then the key, waking its next waiter; its start counts', async () => {
    const { deps, calls } = setup();
    const lease = leaseOf(await admit(deps, run, flowJob(), entry));
    lease.attemptStarted();
    calls.length = 0;
    await lease.release();
    expect(calls).toEqual([`release tenant slot ${run.executionId}`, `release key https://api.example ${run.executionId}, waking`]);
  });

  it('unstarted, a new place and its start go back; a place an earlier delivery holds stays', async () => {
    const fresh = setup();
    await leaseOf(await admit(fresh.deps, run, flowJob(), entry)).release();
    expect(fresh.calls.slice(-2)).toEqual([
      `release tenant slot ${run.executionId}`,
      `release key https://api.example ${run.executionId} and its start, waking`,
    ]);

    const redelivered = setup({ slot: 'held', flow: { kind: 'held' } });
    await leaseOf(await admit(redelivered.deps, run, flowJob(), entry)).release();
    expect(redelivered.calls.filter((c) => c.startsWith('release'))).toEqual([]);
  });

  it('a skip gives the new key place back at once, waking the next waiter', async () => {
    const { deps, calls } = setup({ decisions: [{ action: 'skip', reason: 'overlap policy SKIP' }] });
    const admission = await admit(deps, run, flowJob('SKIP'), entry);
    expect(admission.kind).toBe('skip');
    expect(calls.slice(-2)).toEqual([
      `release tenant slot ${run.executionId}`,
      `release key https://api.example ${run.executionId} and its start, waking`,
    ]);
  });
});
