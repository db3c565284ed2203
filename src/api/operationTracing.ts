import type { ApolloServerPlugin } from '@apollo/server';
import { SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import type { Context } from '../resolvers/context.type.js';
import { SPAN_ATTRIBUTES as A } from '../tracing/spanAttributes.js';
import { firstErrorCode } from './firstErrorCode.js';

/**
 * A span per GraphQL request over HTTP, named `<type> <operation name>` (semantic conventions),
 * with the caller's tenant and the first error code (after formatError, as clients see it). The
 * document and variables are not recorded: they may hold secrets (target headers, payloads).
 */
export function operationTracing(tracer: Tracer): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      const span = tracer.startSpan('GraphQL Operation', { kind: SpanKind.SERVER });
      return {
        async willSendResponse({ response, operation, operationName, contextValue }) {
          const type = operation?.operation;
          if (type) span.updateName(operationName ? `${type} ${operationName}` : type);
          if (type) span.setAttribute(A.graphqlOperationType, type);
          if (operationName) span.setAttribute(A.graphqlOperationName, operationName);
          const tenantId = contextValue.scope?.identity.tenantId;
          if (tenantId) span.setAttribute(A.tenantId, tenantId);
          const code = firstErrorCode(response);
          if (code) {
            span.setAttributes({ [A.graphqlErrorCode]: code, [ATTR_ERROR_TYPE]: code });
            span.setStatus({ code: SpanStatusCode.ERROR });
          }
          span.end();
        },
      };
    },
  };
}
