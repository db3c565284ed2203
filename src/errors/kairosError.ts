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
    super(message);
    this.name = new.target.name;
    this.details = details;
  }
}
