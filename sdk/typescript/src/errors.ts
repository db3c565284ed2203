/** The codes Kairos puts in `extensions.code`, plus NETWORK_ERROR for a request that got no GraphQL answer. */
export type KairosErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'BAD_USER_INPUT'
  | 'QUOTA_EXCEEDED'
  | 'RATE_LIMITED'
  | 'CONFLICT'
  | 'INTERNAL_SERVER_ERROR'
  | 'NETWORK_ERROR';

/** One GraphQL error as the server sends it. */
export interface GraphQLErrorPayload {
  message: string;
  path?: readonly (string | number)[];
  extensions?: { code?: string; [key: string]: unknown };
}

/**
 * Every failure the client reports: `code` tells them apart, `details` holds the error's other
 * extensions (`retryAfterSeconds` for RATE_LIMITED, `maxJobs` for QUOTA_EXCEEDED, `field` for
 * BAD_USER_INPUT), `errors` all errors of the response when there were several.
 */
export class KairosError extends Error {
  readonly code: KairosErrorCode;
  readonly details: Readonly<Record<string, unknown>>;
  /** HTTP status of the response, when there was one (429 for RATE_LIMITED). */
  readonly status?: number;
  readonly path?: readonly (string | number)[];
  readonly errors: readonly GraphQLErrorPayload[];

  constructor(
    code: KairosErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; status?: number; path?: readonly (string | number)[]; errors?: readonly GraphQLErrorPayload[]; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'KairosError';
    this.code = code;
    this.details = options.details ?? {};
    this.status = options.status;
    this.path = options.path;
    this.errors = options.errors ?? [];
  }

  /** Seconds to wait before retrying, for RATE_LIMITED. */
  get retryAfterSeconds(): number | undefined {
    const value = this.details.retryAfterSeconds;
    return typeof value === 'number' ? value : undefined;
  }

  /** The error of a GraphQL response (the first one; all are in `errors`). */
  static fromGraphQLErrors(errors: readonly GraphQLErrorPayload[], status?: number): KairosError {
    const [first] = errors;
    const { code, ...details } = first?.extensions ?? {};
    return new KairosError(knownCode(code), first?.message ?? 'Unknown GraphQL error', { details, status, path: first?.path, errors });
  }
}

const CODES = new Set<string>(['UNAUTHENTICATED', 'FORBIDDEN', 'NOT_FOUND', 'BAD_USER_INPUT', 'QUOTA_EXCEEDED', 'RATE_LIMITED', 'CONFLICT', 'INTERNAL_SERVER_ERROR', 'NETWORK_ERROR']);

function knownCode(code: unknown): KairosErrorCode {
  return typeof code === 'string' && CODES.has(code) ? (code as KairosErrorCode) : 'INTERNAL_SERVER_ERROR';
}
