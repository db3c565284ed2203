import type { ApolloServerPlugin } from '@apollo/server';
import { Kind, type OperationDefinitionNode, type SelectionSetNode, type FragmentDefinitionNode } from 'graphql';
import { RateLimitedError } from '../errors/index.js';
import type { Context } from './context.type.js';

/** The rate bucket mutations are counted in. */
export const WRITES_BUCKET = 'writes';

function rootFieldCount(selectionSet: SelectionSetNode, fragments: Record<string, FragmentDefinitionNode>, seen = new Set<string>()): number {
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) count += selection.name.value === '__typename' ? 0 : 1;
    else if (selection.kind === Kind.INLINE_FRAGMENT) count += rootFieldCount(selection.selectionSet, fragments, seen);
    else if (!seen.has(selection.name.value) && fragments[selection.name.value]) {
      seen.add(selection.name.value);
      count += rootFieldCount(fragments[selection.name.value].selectionSet, fragments, seen);
    }
  }
  return count;
}

/**
 * Counts every mutation field (one `triggerJob` is one manual trigger; aliases count one each)
 * against the tenant's maxExecutionsPerMinute, before anything runs. Over the limit, the whole
 * operation is refused with RATE_LIMITED, HTTP 429 and a Retry-After header, and nothing is written.
 * Reads are not counted: the query limits bound what one read may cost.
 */
export const writeRateLimit: ApolloServerPlugin<Context> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ contextValue, operation, document, response }) {
        const scope = contextValue.scope;
        if (!scope || operation?.operation !== 'mutation') return;
        const fragments = Object.fromEntries(
          document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
        );
        const writes = rootFieldCount((operation as OperationDefinitionNode).selectionSet, fragments);
        if (writes === 0) return;
        const { maxExecutionsPerMinute } = await contextValue.app.quotas.of(scope.identity.tenantId);
        try {
          await contextValue.app.rateLimiter.take(WRITES_BUCKET, scope.identity.tenantId, maxExecutionsPerMinute, writes);
        } catch (error) {
          if (error instanceof RateLimitedError) {
            response.http.status = 429;
            response.http.headers.set('retry-after', String(error.details.retryAfterSeconds));
          }
          throw error;
        }
      },
    };
  },
};
