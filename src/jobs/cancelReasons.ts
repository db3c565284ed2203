/** The `reason` of executions cancelled by a job lifecycle operation (a resume or schedule change revives those of a pause or an earlier change). */
export const CANCEL_REASONS = {
  scheduleChanged: 'schedule changed',
  paused: 'job paused',
  deleted: 'job deleted',
} as const;
