/** What the watchdog sees of one queue consumer. */
export interface WatchedConsumer {
  /** Its queue shard's name. */
  readonly name: string;
  /** Entries it is running (or holding at the pool gate) now. */
  readonly inFlight: number;
  /** When it last took an entry from its queue, or was started (epoch ms). */
  readonly lastTakenAt: number;
}

export interface ConsumerWatchdogOptions {
  /** A consumer idle this long while its queue has entries waiting is wedged (config WORKER_WEDGED_MS). */
  wedgedAfterMs: number;
}

/**
 * Finds queue consumers that stopped taking work. BullMQ's blocking connection to a Redis Cluster
 * node can stay wedged after that node restarts (a known BullMQ fault): the consumer neither
 * errors nor fetches again, and its shard's entries wait for ever. A healthy consumer with free
 * slots takes a waiting entry within milliseconds, so one that ran nothing for `wedgedAfterMs`
 * while entries wait is replaced by its owner (WorkerRole).
 */
export class ConsumerWatchdog {
  constructor(
    private readonly deps: {
      /** Entries due now in the shard's queue. */
      waiting(name: string): Promise<number>;
    },
    private readonly options: ConsumerWatchdogOptions,
  ) {}

  /** The consumers wedged at `now`; only idle ones past the threshold cost a Redis read. */
  async wedged<C extends WatchedConsumer>(consumers: readonly C[], now: number): Promise<C[]> {
    const suspects = consumers.filter((c) => c.inFlight === 0 && now - c.lastTakenAt >= this.options.wedgedAfterMs);
    const waiting = await Promise.all(suspects.map((c) => this.deps.waiting(c.name)));
    return suspects.filter((_, i) => waiting[i] > 0);
  }
}
