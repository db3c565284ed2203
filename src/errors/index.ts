import { KairosError, type ErrorCode } from './kairosError.js';

export { KairosError, type ErrorCode } from './kairosError.js';

/** The token is missing, malformed, badly signed, expired or lacks a tenant. */
export class UnauthenticatedError extends KairosError {
  readonly code: ErrorCode = 'UNAUTHENTICATED';
  constructor(message = 'A valid bearer token is required') {
    super(message);
  }
}

/** The caller's role does not allow the operation. */
export class ForbiddenError extends KairosError {
  readonly code: ErrorCode = 'FORBIDDEN';
}

/** No such object in the caller's tenant (another tenant's objects look exactly like this). */
export class NotFoundError extends KairosError {
  readonly code: ErrorCode = 'NOT_FOUND';
  constructor(what: string, id: string) {
    // The id is the caller's input: shown, but never at any length.
    super(`${what} ${id.length > 100 ? `${id.slice(0, 100)}...` : id} was not found`);
  }
}

/** Invalid input; the message says what to fix and `field` names the offending input when known. */
export class BadUserInputError extends KairosError {
  readonly code: ErrorCode = 'BAD_USER_INPUT';
  constructor(message: string, field?: string) {
    super(message, field ? { field } : {});
  }
}

export class QuotaExceededError extends KairosError {
  readonly code: ErrorCode = 'QUOTA_EXCEEDED';
}

export class RateLimitedError extends KairosError {
  readonly code: ErrorCode = 'RATE_LIMITED';
  constructor(message: string, retryAfterSeconds: number) {
    super(message, { retryAfterSeconds });
  }
}

/** The object is not in a state that allows the operation. */
export class ConflictError extends KairosError {
  readonly code: ErrorCode = 'CONFLICT';
}

/** A dependency (MongoDB, Redis) did not answer, so the request could not be checked or served; retrying later may succeed. */
export class UnavailableError extends KairosError {
  readonly code: ErrorCode = 'INTERNAL_SERVER_ERROR';
}

/** A named calendar cannot be deleted while jobs list it among their exclusions; the message names them. */
export class CalendarInUseError extends KairosError {
  readonly code: ErrorCode = 'CONFLICT';
  constructor(calendar: string, jobNames: string[], more: boolean) {
    super(
      `Calendar "${calendar}" is used by ${jobNames.map((name) => `"${name}"`).join(', ')}${more ? ' and more jobs' : ''}; ` +
        'remove it from their exclusions first',
      { calendar, jobs: jobNames },
    );
  }
}

/**
 * The search for an occurrence outside a job's exclusions jumped over its bound of windows without
 * finding one (exclusions that cover all, or nearly all, of the schedule's time).
 */
export class ExclusionSearchLimitError extends KairosError {
  readonly code: ErrorCode = 'BAD_USER_INPUT';
  constructor(jumps: number, field = 'exclusions') {
    super(
      `No occurrence outside the exclusions was found within ${jumps} excluded windows: the exclusions cover (nearly) every occurrence of the schedule; shorten them`,
      { field },
    );
  }
}

/**
 * Another job of the tenant holds the external id a create or update gives. The message and
 * `extensions.jobId` name that job's global id, so a client can read or update it instead.
 */
export class ExternalIdConflictError extends ConflictError {
  constructor(externalId: string, jobId: string) {
    super(`externalId "${externalId}" is held by job ${jobId} already; update that job, or create with upsert: true to update it`, {
      field: 'externalId',
      jobId,
    });
  }
}
