import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { ArgumentValidationError } from 'type-graphql';
import { KairosError } from '../errors/index.js';
import type { Logger } from '../logger.js';
import { errorMessage } from '../logger.js';

/** Apollo's own codes for requests that never reached a resolver; all are the caller's input. */
const INPUT_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
]);

/** graphql-js suggests field, type and argument names ("Did you mean ...?"): the schema, told to whoever asks. */
const SUGGESTION = / ?Did you mean [^?]*\?/g;

/**
 * The one place errors become `extensions.code`. Kairos errors keep their code and message;
 * invalid documents are BAD_USER_INPUT; anything else is logged and shown as a bare
 * INTERNAL_SERVER_ERROR, never with a stack trace or an internal message. Outside development
 * mode, validation messages lose their name suggestions, since introspection is off there too.
 */
export function makeFormatError(logger: Logger, development: boolean) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const unwrapped = unwrapResolverError(error);
    // A KairosError thrown from a plugin hook (rate limits) arrives wrapped without a path.
    const original =
      unwrapped instanceof GraphQLError && unwrapped.originalError instanceof KairosError ? unwrapped.originalError : unwrapped;
    const base = { message: formatted.message, locations: formatted.locations, path: formatted.path };
    if (original instanceof KairosError) {
      return { ...base, message: original.message, extensions: { ...original.details, code: original.code } };
    }
    if (original instanceof ArgumentValidationError) {
      return { ...base, message: 'Invalid argument', extensions: { code: 'BAD_USER_INPUT' } };
    }
    const code = formatted.extensions?.code;
    if (typeof code === 'string' && INPUT_CODES.has(code)) {
      return {
        ...base,
        message: development ? base.message : base.message.replace(SUGGESTION, ''),
        extensions: { code: 'BAD_USER_INPUT' },
      };
    }
    logger.error('unexpected error in a GraphQL request', { path: formatted.path?.join('.'), error: errorMessage(original) });
    return {
      message: 'Internal server error',
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    };
  };
}
