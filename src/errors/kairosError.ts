/** The stable codes clients see in `extensions.code` (schema.graphql header). */
export type ErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'BAD_USER_INPUT'
  | 'QUOTA_EXCEEDED'
  | 'RATE_LIMITED'
  | 'CONFLICT'
  | 'INTERNAL_SERVER_ERROR';

/** Base of every error Kairos raises on purpose; its message is safe to show to the caller. */
export abstract class KairosError extends Error {
  abstract readonly code: ErrorCode;
  /** Extra, client-safe fields merged into `extensions`. */
  readonly details: Record<string, unknown>;

  constructor(message: string, details: Record<string, unknown> = {}) {
    // An answer to the client, not a fault: its stack trace is never logged or sent, and capturing
    // one for each refusal of a flood of requests was measurable CPU (bench:neighbours' profile).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = new.target.name;
    this.details = details;
  }
}
