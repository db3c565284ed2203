import type { ClaimRequest, RunStore } from '../store/runStore.js';

/**
 * One attempt's start on its way to MongoDB. Until it is written, the Redis attempt claim is the
 * record of the start; an attempt that ends sooner has its start written by its end (one statement
 * instead of two), docs/architecture.md "The deferred claim".
 */
export class DeferredClaim {
  private state: 'waiting' | 'writing' | 'written' | 'failed' | 'missed' | 'settled';
  private writing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private missedListener: (() => void) | null = null;

  constructor(
    private readonly store: Pick<RunStore, 'claim'>,
    readonly request: ClaimRequest,
    private readonly done: (claim: DeferredClaim) => void,
    /** Already written before the attempt (no deferral). */
    written = false,
  ) {
    this.state = written ? 'written' : 'waiting';
  }

  /** Writes the start after `afterMs` unless the attempt settles first. */
  schedule(afterMs: number): void {
    this.timer = setTimeout(() => void this.write(), afterMs);
  }

  /**
   * Writes the start now (once, or again after a write that failed). Its compare-and-set can miss:
   * the execution was cancelled or taken over while the attempt ran, and the attempt is told
   * (`onMissed`). A write that fails leaves the start to the end, which records it (and matches it,
   * should the failed write have landed after all).
   */
  write(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.state !== 'waiting' && this.state !== 'failed') return this.writing ?? Promise.resolve();
    this.state = 'writing';
    this.writing = this.store.claim(this.request).then(
      ({ claimed }) => {
        this.state = claimed ? 'written' : 'missed';
        if (!claimed) this.missedListener?.();
      },
      () => {
        this.state = 'failed';
      },
    );
    return this.writing;
  }

  /** Called when the write finds the execution changed (the attempt should stop: it is no longer this execution's); at once if it already has. */
  onMissed(listener: () => void): void {
    this.missedListener = listener;
    if (this.state === 'missed') listener();
  }

  /**
   * The attempt has ended: no write starts any more; waits for one in flight. True when MongoDB holds
   * the start (the end goes from RUNNING), false when the end must record it.
   */
  async settle(): Promise<boolean> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.state === 'waiting' || this.state === 'failed') this.state = 'settled';
    await this.writing;
    this.done(this);
    return this.state === 'written';
  }
}

/**
 * The starts of this worker's running attempts not yet written to MongoDB. Each is written after
 * `afterMs` (0 = before the attempt runs: the claim of docs/architecture.md, "The life of an occurrence", step 4, as it was), and
 * all at once when Redis, which holds them meanwhile, becomes unreachable (`writeAll`): a Redis that
 * comes back empty must not let another worker start the same attempt while its start is only there.
 */
export class DeferredClaims {
  private readonly pending = new Set<DeferredClaim>();

  /**
   * @param store Where starts are written (the worker's RunStore).
   * @param afterMs How long an attempt runs before its start is written (config WORKER_CLAIM_AFTER_MS).
   */
  constructor(
    private readonly store: Pick<RunStore, 'claim'>,
    readonly afterMs: number,
  ) {}

  /**
   * The start of the attempt `request` describes; null when, written at once (`afterMs` 0), the
   * compare-and-set missed (the entry's picture was stale).
   */
  async start(request: ClaimRequest): Promise<DeferredClaim | null> {
    const forget = (c: DeferredClaim) => this.pending.delete(c);
    if (this.afterMs === 0) {
      const { claimed } = await this.store.claim(request);
      return claimed ? new DeferredClaim(this.store, request, forget, true) : null;
    }
    const claim = new DeferredClaim(this.store, request, forget);
    this.pending.add(claim);
    claim.schedule(this.afterMs);
    return claim;
  }

  /** Writes every pending start now. */
  writeAll(): void {
    for (const claim of this.pending) void claim.write();
  }

  /** Attempts whose start is not written yet (for tests and metrics). */
  get size(): number {
    return this.pending.size;
  }
}
