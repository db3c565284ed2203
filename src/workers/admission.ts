import { ObjectId } from 'mongodb';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { CancelSignals } from '../events/cancelSignals.js';
import type { KairosMetrics } from '../metrics/kairosMetrics.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';
import type { EntryExecution, JobSnapshot } from '../queue/queueEntry.js';
import type { ConcurrencyLimiter, SlotResult } from '../quotas/concurrencyLimiter.js';
import type { FlowLimiter } from '../quotas/flowLimiter.js';
import type { RunStore } from '../store/runStore.js';
import { takeFlowPlace, type FlowPlace } from './flowAdmission.js';
import { releaseJobSlot, type OverlapDecision, type OverlapGuard } from './overlapGuard.js';
import type { TenantShare } from './tenantShare.js';
import { waitForTenantSlot, type Redelivery, type TenantWait } from './tenantWait.js';
import { releaseFlowPlace, releaseTenantSlot, returnFlowPlaceUnwoken, waiterOf } from './wakeWaiter.js';

/** How long CANCEL_PREVIOUS waits for the cancelled execution to give up the job's slot before taking it anyway. */
const CANCEL_PREVIOUS_WAIT_MS = 15_000;
const CANCEL_PREVIOUS_POLL_MS = 50;

export interface AdmissionDeps {
  /** Each tenant's share of this process's slots. */
  tenantShare: Pick<TenantShare, 'take'>;
  /** The tenants' running slots (maxConcurrentExecutions). */
  tenantSlots: Pick<ConcurrencyLimiter, 'take' | 'release'>;
  /** The flow-control keys' running places and starts (a job's flowControl). */
  flow: Pick<FlowLimiter, 'take' | 'release'>;
  /** The jobs' running slots (overlap policies). */
  overlap: Pick<OverlapGuard, 'decide' | 'release'>;
  cancels: Pick<CancelSignals, 'cancel'>;
  /** Wakes a tenant slot's waiter; queues the execution BUFFER_ONE held back. */
  queues: Pick<ExecutionQueues, 'promote' | 'enqueue'>;
  /** Whether a delivery runs the execution (it holds the slots). */
  runStore: Pick<RunStore, 'findRunnable'>;
  metrics: Pick<KairosMetrics, 'quotaRefused'>;
  clock: Clock;
  random: () => number;
  logger: Logger;
}

/** What of a delivery's execution admission needs. */
export type AdmittedRun = EntryExecution & { executionId: string };

/** What admission decided for a delivery. */
export type Admission =
  /** The tenant has its share of this process or its quota of slots: the entry comes back later, holding nothing. */
  | { kind: 'wait'; redelivery: Redelivery }
  /** The job's overlap policy skips the execution (SKIP, or BUFFER_ONE with one already held back). */
  | { kind: 'skip'; reason: string; lease: Lease }
  /** BUFFER_ONE holds it back: it stays QUEUED, and the running execution's worker queues it when it finishes. */
  | { kind: 'hold'; lease: Lease }
  /** It may run: the lease holds the tenant's share, its slot and the job's slot. */
  | { kind: 'run'; lease: Lease };

/**
 * Admits a delivery (docs/architecture.md, "Fair share"): the tenant's share of this process first
 * (no round trip), then the job's flow-control key ("Flow control"; before the tenant's slot, so
 * executions waiting for a busy key hold none of the slots the tenant's other jobs need), then the
 * tenant's slot, then the job's overlap policy. What it took is a Lease
 * the caller releases when the delivery is done. `entry`: the delivered entry's id, and whether a
 * wait gives it a fresh picture (this delivery read the execution or the job, so its next try reads neither).
 */
export async function admit(
  deps: AdmissionDeps,
  run: AdmittedRun,
  job: JobSnapshot,
  entry: { refresh: boolean; entryId: string },
): Promise<Admission> {
  const wait: TenantWait = { ...entry, waiting: 0, limit: 1, waiter: waiterOf(run.workload, entry.entryId) };
  // A tenant that has its share of this process waits as one at its quota does.
  const share = deps.tenantShare.take(run.tenantId, run.workload);
  if (!share) return { kind: 'wait', redelivery: waitForTenantSlot(deps, run, job, wait) };
  try {
    return await admitWithinShare(deps, run, job, wait, share);
  } catch (error) {
    share();
    throw error;
  }
}

async function admitWithinShare(
  deps: AdmissionDeps,
  run: AdmittedRun,
  job: JobSnapshot,
  wait: TenantWait,
  share: () => void,
): Promise<Admission> {
  const slotTtlMs = job.timeoutSeconds * 1000 + 30_000;
  if (!job.flowControl) return admitToSlots(deps, run, job, wait, { share, flow: null }, slotTtlMs);
  const taken = await takeFlowPlace(deps, run, job, job.flowControl, slotTtlMs, wait);
  if (taken.kind === 'wait') {
    share();
    return taken;
  }
  const { place } = taken;
  try {
    return await admitToSlots(deps, run, job, wait, { share, flow: place }, slotTtlMs);
  } catch (error) {
    // The share is given back by admit(); a place this delivery took goes back without waking anyone.
    await returnFlowPlaceUnwoken(deps, run.tenantId, place).catch(() => null);
    throw error;
  }
}

/** The tenant's slot and the job's overlap policy, for a delivery holding its share and its flow-control place (if any). */
async function admitToSlots(
  deps: AdmissionDeps,
  run: AdmittedRun,
  job: JobSnapshot,
  wait: TenantWait,
  held: Pick<Holdings, 'share' | 'flow'>,
  slotTtlMs: number,
): Promise<Admission> {
  const { executionId } = run;
  const jobId = run.jobId.toHexString();
  const { slot, waiting, limit } = await deps.tenantSlots.take(run.tenantId, executionId, slotTtlMs, wait.waiter);
  if (slot === 'full') {
    deps.metrics.quotaRefused('concurrency', run.tenantId);
    // The key's place goes back unwoken: its waiters would find the tenant's slots as full as this one did.
    if (held.flow) await returnFlowPlaceUnwoken(deps, run.tenantId, held.flow);
    held.share();
    return { kind: 'wait', redelivery: waitForTenantSlot(deps, run, job, { ...wait, waiting, limit }) };
  }
  let decision = await deps.overlap.decide(job.overlapPolicy, jobId, executionId, slotTtlMs);
  if (decision.action === 'cancel-previous') {
    decision = await cancelPrevious(deps, decision.runningId, jobId, executionId, slotTtlMs);
  }
  if (decision.action === 'run') {
    return { kind: 'run', lease: new Lease(deps, run, { ...held, tenantSlot: slot, jobSlot: job.overlapPolicy !== 'ALLOW' }) };
  }
  // Not running it: a tenant slot or key place taken for it goes back now (one an earlier delivery of it holds stays with that one).
  if (slot === 'new') await releaseTenantSlot(deps, run.tenantId, executionId);
  if (held.flow?.taken === 'new') await releaseFlowPlace(deps, run.tenantId, held.flow.hold.limits, held.flow.hold, false);
  const lease = new Lease(deps, run, { share: held.share, flow: null, tenantSlot: null, jobSlot: false });
  return decision.action === 'skip' ? { kind: 'skip', reason: decision.reason, lease } : { kind: 'hold', lease };
}

/** What a lease holds: the share's release, the flow-control place, the tenant slot as taken (null: none left to give back), and whether it took the job's slot. */
interface Holdings {
  share: () => void;
  flow: FlowPlace | null;
  tenantSlot: Exclude<SlotResult, 'full'> | null;
  jobSlot: boolean;
}

/**
 * What an admitted delivery holds, and one `release()` that gives it back when the delivery is done.
 * Once the attempt started, the delivery owns the slots and frees them all. Before that, the slots
 * are keyed by execution: a delivery running the execution (a duplicate's) holds them, and they stay
 * with it; unsure (MongoDB unreachable), they are kept, and the execution's redelivery takes them as its own.
 */
export class Lease {
  private started = false;

  /** Whether a delivery running the execution holds its slots, once giveBack found out. */
  private elsewhere: boolean | null = null;

  constructor(
    private readonly deps: Pick<AdmissionDeps, 'overlap' | 'queues' | 'tenantSlots' | 'flow' | 'runStore' | 'clock' | 'logger'>,
    private readonly run: Pick<AdmittedRun, 'executionId' | 'tenantId' | 'jobId' | 'workload'>,
    private readonly holds: Holdings,
  ) {}

  /** The attempt started: this delivery owns the slots, however the attempt ends. */
  attemptStarted(): void {
    this.started = true;
  }

  /** Gives back the job's slot this delivery took without starting the attempt, unless a delivery running the execution holds it. */
  async giveBack(): Promise<void> {
    const held = await this.runningElsewhere().catch(() => true);
    if (!held && this.holds.jobSlot) await this.releaseJobSlot();
    this.elsewhere = held;
  }

  /** giveBack for a delivery about to fail with an error of its own, which is what counts: one that fails to give back keeps the slots. */
  async giveBackQuietly(): Promise<void> {
    await this.giveBack().catch(() => {
      this.elsewhere = true;
    });
  }

  /** Frees what the lease holds; the tenant's share always, last. */
  async release(): Promise<void> {
    const { tenantId, executionId } = this.run;
    const { flow, tenantSlot } = this.holds;
    try {
      if (this.started) {
        if (this.holds.jobSlot) await this.releaseJobSlot();
        await releaseTenantSlot(this.deps, tenantId, executionId);
        if (flow) await releaseFlowPlace(this.deps, tenantId, flow.hold.limits, flow.hold, true);
      } else if (tenantSlot === 'new' || flow?.taken === 'new') {
        // A duplicate that took the slot (or the key's place) as new but lost the claim to a delivery
        // now running leaves it to that one (which found it held, and releases it when done).
        if (this.elsewhere ?? (await this.runningElsewhere().catch(() => true))) return;
        if (tenantSlot === 'new') await releaseTenantSlot(this.deps, tenantId, executionId);
        if (flow?.taken === 'new') await releaseFlowPlace(this.deps, tenantId, flow.hold.limits, flow.hold, false);
      }
    } finally {
      this.holds.share();
    }
  }

  private releaseJobSlot(): Promise<void> {
    return releaseJobSlot(this.deps, this.run, this.run.jobId.toHexString(), this.run.executionId);
  }

  private async runningElsewhere(): Promise<boolean> {
    return (await this.deps.runStore.findRunnable(new ObjectId(this.run.executionId)))?.status === 'RUNNING';
  }
}

/** Cancels the running execution and waits for its slot; takes the slot anyway after a while (its worker may be gone). */
async function cancelPrevious(
  deps: Pick<AdmissionDeps, 'overlap' | 'cancels'>,
  runningId: string,
  jobId: string,
  executionId: string,
  slotTtlMs: number,
): Promise<OverlapDecision> {
  await deps.cancels.cancel(runningId, `cancelled by a newer execution (overlap policy CANCEL_PREVIOUS)`);
  // Counted in polls, not read from a clock: a fixed test clock must not make this wait forever.
  for (let waitedMs = 0; waitedMs < CANCEL_PREVIOUS_WAIT_MS; waitedMs += CANCEL_PREVIOUS_POLL_MS) {
    const decision = await deps.overlap.decide('SKIP', jobId, executionId, slotTtlMs);
    if (decision.action === 'run') return decision;
    await sleep(CANCEL_PREVIOUS_POLL_MS);
  }
  await deps.overlap.release(jobId, runningId);
  return deps.overlap.decide('SKIP', jobId, executionId, slotTtlMs);
}
