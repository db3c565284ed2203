import { KairosError } from '@kairos/client';

/** The CLI's exit codes, one per kind of failure, so scripts can tell them apart (README of cli/). */
export const EXIT = {
  OK: 0,
  UNEXPECTED: 1,
  USAGE: 2,
  UNAUTHENTICATED: 3,
  FORBIDDEN: 4,
  NOT_FOUND: 5,
  BAD_USER_INPUT: 6,
  QUOTA_EXCEEDED: 7,
  RATE_LIMITED: 8,
  CONFLICT: 9,
  NETWORK_ERROR: 10,
  INTERNAL_SERVER_ERROR: 11,
} as const;

/** A failure of the CLI's own (bad flags, not logged in), with the exit code it ends with. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode: number) {
    super(message);
  }
}

export function exitCodeOf(error: unknown): number {
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof KairosError) return EXIT[error.code] ?? EXIT.UNEXPECTED;
  return EXIT.UNEXPECTED;
}
