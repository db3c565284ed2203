import type { GraphQLResponse } from '@apollo/server';

/** The code of a response's first error as clients see it (after formatError); null when it has no error. */
export function firstErrorCode(response: GraphQLResponse): string | null {
  const errors = response.body.kind === 'single' ? response.body.singleResult.errors : undefined;
  if (!errors?.length) return null;
  const code = errors[0].extensions?.code;
  return typeof code === 'string' ? code : 'INTERNAL_SERVER_ERROR';
}
