/**
 * The slots of one worker pool (IO or CPU) of this process, shared by the consumers of every queue
 * shard of that workload: each consumer may take up to the whole pool (so one busy shard can use
 * all of it), and the gate keeps the attempts running at once within the pool. An entry taken
 * beyond it waits here, first come first served, holding its queue lock (renewed meanwhile).
 * With one shard the consumer's own concurrency equals the pool and the gate never waits.
 */
export class PoolGate {
  private running = 0;
  private readonly waiting: ((release: (() => void) | null) => void)[] = [];
  private closed = false;

  constructor(private readonly size: number) {}

  /** Resolves with the slot's release function, or null once the gate is closed (the worker stops). */
  acquire(): Promise<(() => void) | null> {
    if (this.closed) return Promise.resolve(null);
    if (this.running < this.size) {
      this.running++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Refuses new and waiting acquirers: their entries go back to the queue for another process. */
  close(): void {
    this.closed = true;
    for (const resolve of this.waiting.splice(0)) resolve(null);
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter; the count only drops when nobody waits.
      if (next) next(this.releaser());
      else this.running--;
    };
  }
}
