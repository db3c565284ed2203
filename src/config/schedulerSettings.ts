/** The scheduler role's settings: its look-ahead, its lease and the leader's periodic jobs. */
export interface SchedulerSettings {
  /** A job is due when its next occurrence falls within this of now; the sweep then materialises up to twice this ahead. Default 30 s. */
  lookAheadMs: number;
  /** Leader lease TTL. Default 5 s. */
  leaseTtlMs: number;
  /** Period of the leader's reconcile job. Default 30 s. */
  reconcileEveryMs: number;
  /** How long past its time a waiting execution must be before reconcile re-enqueues it. Default 60 s. */
  reconcileGraceMs: number;
  /** Period of the leader's purge of executions past their tenant's retention. Default 5 minutes. */
  purgeEveryMs: number;
}
