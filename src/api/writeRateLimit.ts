import type { ApolloServerPlugin } from '@apollo/server';
import {
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { RateLimitedError } from '../errors/index.js';
import type { Context } from '../resolvers/context.type.js';

/** The rate bucket mutations are counted in. */
export const WRITES_BUCKET = 'writes';

/**
 * How long a burst of writes is: what 10 s refill, but at least 10 writes and at most a minute's
 * allowance (600 a minute: 100 at once). A minute's worth at once let a tenant land 600 triggers in
 * one go, a burst every other tenant's statements queued behind on the database.
 */
export function writeBurstMs(perMinute: number): number {
  const burst = Math.min(perMinute, Math.max(10, perMinute / 6));
  return (burst * 60_000) / perMinute;
}

function rootFieldCount(
  selectionSet: SelectionSetNode,
  fragments: Record<string, FragmentDefinitionNode>,
  seen = new Set<string>(),
): number {
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
 * Counts every mutation field of the operation (one `triggerJob` is one manual trigger; aliases
 * count one each) against the tenant's maxExecutionsPerMinute, before anything runs; throws
 * RATE_LIMITED (and takes nothing) over the limit. Reads are not counted: the query limits bound
 * what one read may cost. Used over HTTP (the plugin below) and WebSocket alike.
 */
export async function chargeWrites(
  context: Context,
  document: DocumentNode,
  operation: OperationDefinitionNode | null | undefined,
): Promise<void> {
  const scope = context.scope;
  if (!scope || operation?.operation !== OperationTypeNode.MUTATION) return;
  const fragments = Object.fromEntries(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  const writes = rootFieldCount(operation.selectionSet, fragments);
  if (writes === 0) return;
  const { maxExecutionsPerMinute } = await context.app.operations.quotas.of(scope.identity.tenantId);
  await context.app.rateLimiter.take(WRITES_BUCKET, scope.identity.tenantId, maxExecutionsPerMinute, writes, {
    burstMs: writeBurstMs(maxExecutionsPerMinute),
  });
}

/** chargeWrites for Apollo: a refusal also answers HTTP 429 with a Retry-After header. */
export const writeRateLimit: ApolloServerPlugin<Context> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ contextValue, operation, document, response }) {
        try {
          await chargeWrites(contextValue, document, operation);
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
