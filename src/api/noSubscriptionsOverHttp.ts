import { GraphQLError, OperationTypeNode, type ValidationRule } from 'graphql';

/** HTTP answers queries and mutations only; a subscription there would run without its event stream. */
export const noSubscriptionsOverHttp: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (node.operation === OperationTypeNode.SUBSCRIPTION) {
      context.reportError(
        new GraphQLError('Subscriptions are served over WebSocket (graphql-ws) at this URL, not over HTTP', { nodes: [node] }),
      );
    }
  },
});
