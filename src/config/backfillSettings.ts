/** The limits and pace of backfillJob (jobs/backfillJob.ts); docs/operating.md lists them. */
export interface BackfillSettings {
  /**
   * BACKFILL_MAX_OCCURRENCES: the most occurrences one backfillJob call (a dry run included) may
   * cover; a range with more is refused (BAD_USER_INPUT on `to`, with `maxOccurrences`). Each is a
   * schedule search on the API's main thread and an execution waiting in the shared Redis. Default 500.
   */
  maxOccurrences: number;
  /** BACKFILL_EXECUTIONS_PER_SECOND: how many executions of one backfill start a second at most (domain/backfillPacing.ts). Default 2. */
  executionsPerSecond: number;
}
