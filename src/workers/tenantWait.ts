import type { Clock } from '../clock.js';
import { queueEntry, type EntryExecution, type ExecutionMessage, type JobSnapshot } from '../queue/queueEntry.js';

/**
 * How long a delivery refused a tenant slot waits before it tries again. A freed slot wakes the
 * tenant's oldest waiter at once (wakeWaiter.ts), so these timed tries are the fallback: for a slot
 * freed by expiry or a raised quota, and for a wake that found its waiter busy. A fixed interval
 * made a tenant's backlog poll Redis in proportion to its length (thousands of waiters every half
 * second starved the attempts holding the slots); spacing tries by the queue's length over the
 * tenant's slots keeps the tries per second near `limit / (spread × baseMs)` whatever the backlog,
 * while a short queue still tries every `baseMs` (docs/architecture.md, "Fair share").
 */
export interface TenantWaitOptions {
  /** The wait when few executions wait for the tenant's slots. Default 500 ms. */
  baseMs: number;
  /** How much further apart than `baseMs` per slot a long queue's tries are. Default 4 (a queue 4× the slots: ~limit / 2 s tries a second). */
  spread: number;
  /** The longest wait, however long the queue. Default 30 s (below ConcurrencyLimiter's waitingTtlMs with jitter). */
  maxMs: number;
}

export const TENANT_WAIT_DEFAULTS: TenantWaitOptions = { baseMs: 500, spread: 4, maxMs: 30_000 };

/**
 * The wait in milliseconds for one of `waiting` executions refused one of `limit` slots, with
 * `random()` in [0, 1) adding up to half again as jitter so the waiters spread out.
 */
export function tenantWaitMs(
  waiting: number,
  limit: number,
  random: () => number,
  options: TenantWaitOptions = TENANT_WAIT_DEFAULTS,
): number {
  const spaced = options.baseMs * Math.max(1, (options.spread * waiting) / Math.max(1, limit));
  return Math.round(Math.min(options.maxMs, spaced) * (1 + random() / 2));
}

/**
 * The delivery waits for its tenant: the worker moves this same queue entry back to delayed until
 * `at` (its id kept, so reconcile's re-enqueue of a late execution merges with it instead of
 * adding a second entry that polls beside it), with `message` as its data when the entry's picture was stale.
 */
export interface Redelivery {
  at: Date;
  message: ExecutionMessage | null;
}

/** How a delivery refused a slot waits: whether its entry needs a fresh picture, the tenant's queue (tenantWaitMs), and what wakes it (wakeWaiter.ts). */
export interface TenantWait {
  refresh: boolean;
  waiting: number;
  limit: number;
  waiter: string;
  /** The delivered entry's id. */
  entryId: string;
}

/**
 * The tenant runs all the executions its quota or its share of this process allows: this one stays
 * as it is (QUEUED or RETRYING) and its entry comes back after a wait spaced by the tenant's queue, with jitter.
 */
export function waitForTenantSlot(
  deps: { clock: Clock; random: () => number },
  run: EntryExecution,
  job: JobSnapshot,
  wait: TenantWait,
): Redelivery {
  return redeliverAt(run, job, wait, new Date(deps.clock().getTime() + tenantWaitMs(wait.waiting, wait.limit, deps.random)));
}

/** The waiting delivery's entry comes back at `at`, with a fresh picture when `wait.refresh`. */
export function redeliverAt(run: EntryExecution, job: JobSnapshot, wait: Pick<TenantWait, 'refresh'>, at: Date): Redelivery {
  return { at, message: wait.refresh ? queueEntry(run, at, { kind: 'waiting' }, job).message : null };
}
