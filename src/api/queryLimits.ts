import { GraphQLError, Kind, type ASTNode, type ValidationContext, type ValidationRule } from 'graphql';

/** Deepest selection nesting accepted (the contract's deepest useful query is about 7). */
export const MAX_DEPTH = 12;
/** Field selections (aliases included) accepted in one document. */
export const MAX_FIELDS = 500;

function selectionDepth(node: ASTNode, fragments: ValidationContext, seen: Set<string>): number {
  if (node.kind === Kind.FRAGMENT_SPREAD) {
    const fragment = fragments.getFragment(node.name.value);
    if (!fragment || seen.has(node.name.value)) return 0;
    return selectionDepth(fragment, fragments, new Set([...seen, node.name.value]));
  }
  if (!('selectionSet' in node) || !node.selectionSet) return 0;
  const nested = node.selectionSet.selections.map((s) => selectionDepth(s, fragments, seen));
  return (node.kind === Kind.FIELD ? 1 : 0) + Math.max(0, ...nested);
}

/**
 * Refuses documents nested deeper than MAX_DEPTH or with more than MAX_FIELDS field selections
 * (alias floods), before anything runs. Reported as BAD_USER_INPUT like any invalid document.
 */
export const queryLimits: ValidationRule = (context) => {
  let fields = 0;
  return {
    Field() {
      fields += 1;
      if (fields === MAX_FIELDS + 1) context.reportError(new GraphQLError(`The query selects more than ${MAX_FIELDS} fields`));
    },
    OperationDefinition(node) {
      const depth = selectionDepth(node, context, new Set());
      if (depth > MAX_DEPTH) context.reportError(new GraphQLError(`The query is nested ${depth} levels deep; at most ${MAX_DEPTH} are allowed`, { nodes: [node] }));
    },
  };
};
