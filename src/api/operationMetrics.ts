import type { ApolloServerPlugin } from '@apollo/server';
import type { Context } from '../resolvers/context.type.js';
import type { KairosMetrics, QuotaKind } from '../metrics/kairosMetrics.js';
import { firstErrorCode } from './firstErrorCode.js';

/** Error codes that are a quota refusing the request, and which quota. */
const QUOTA_CODES: Record<string, QuotaKind> = { QUOTA_EXCEEDED: 'max_jobs', RATE_LIMITED: 'rate' };

/**
 * Counts every GraphQL request over HTTP by operation name, type and first error code (after
 * formatError, so the codes clients see), times it, and counts quota refusals by kind. Only an
 * authenticated caller's validated operation is counted by its name (names are bounded per process);
 * the others under `unauthenticated` or `invalid`.
 */
export function operationMetrics(metrics: KairosMetrics): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      const startedAt = performance.now();
      return {
        async willSendResponse({ response, operation, operationName, contextValue }) {
          const code = firstErrorCode(response) ?? 'none';
          const type = operation?.operation ?? 'unknown';
          const ms = performance.now() - startedAt;
          // Apollo resolves `operation` only once the document parsed and validated.
          if (!contextValue.scope) metrics.unnamedOperation('unauthenticated', type, code, ms);
          else if (!operation) metrics.unnamedOperation('invalid', type, code, ms);
          else metrics.operation(operationName, type, code, ms);
          const quota = QUOTA_CODES[code];
          if (quota) metrics.quotaRefused(quota, contextValue.scope?.identity.tenantId ?? 'unknown');
        },
      };
    },
  };
}
