/** The worker role's settings: its pools, the handlers and targets it runs, the queue lock and its stop. */
export interface WorkerSettings {
  /**
   * ALLOW_PRIVATE_TARGETS: whether a target URL may name a private, loopback, link-local or reserved
   * address: unless set, createJob and updateJob refuse such an IP literal and an attempt whose host
   * resolves to one fails at connect time. Default false.
   */
  allowPrivateTargets: boolean;
  /** WORKER_IO_CONCURRENCY: IO_BOUND executions one worker process runs at once. Default 1000. */
  workerIoConcurrency: number;
  /** WORKER_CPU_CONCURRENCY: CPU_BOUND executions (child processes) one worker process runs at once. Default: one per core. */
  workerCpuConcurrency: number;
  /**
   * The most of a worker process's slots (of each pool, IO and CPU) one tenant may hold at once,
   * in percent, rounded down and at least one slot. Default 25.
   */
  workerTenantSharePercent: number;
  /**
   * An ES module exporting `handlers` (name → async function) that workers can run, besides the
   * built-ins. CPU_BOUND executions load it in their child process. Default: none.
   */
  handlersModule: string | null;
  /**
   * The queue lock: the visibility timeout after which a dead worker's execution is taken over
   * (renewed every half while the worker lives). Default 30 s.
   */
  queueLockMs: number;
  /** How long a stopping worker lets running attempts finish before aborting them. Default 10 s. */
  workerDrainMs: number;
  /** How long a queue consumer may take nothing while its queue has entries due before it is replaced as wedged. Default 15 s. */
  workerWedgedMs: number;
  /**
   * How long an attempt runs before its start is written to MongoDB (RUNNING); an attempt that ends
   * sooner is recorded by its end alone, from the Redis attempt claim that holds its start
   * (docs/architecture.md, "The deferred claim"). 0 = write every start before the target runs. Default 1 s.
   */
  workerClaimAfterMs: number;
}
