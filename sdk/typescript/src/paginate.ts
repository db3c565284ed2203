import type { PageInfoFieldsFragment } from './generated/graphql.js';

/** A Relay connection as the generated operations select it. */
export interface Connection<TNode> {
  edges: { cursor: string; node: TNode }[];
  pageInfo: PageInfoFieldsFragment;
}

/** Walks a connection forward, one page of `pageSize` at a time, yielding its nodes; stops when hasNextPage is false. */
export async function* paginate<TNode>(fetchPage: (first: number, after: string | null) => Promise<Connection<TNode>>, pageSize = 100): AsyncGenerator<TNode, void, undefined> {
  let after: string | null = null;
  for (;;) {
    const page: Connection<TNode> = await fetchPage(pageSize, after);
    for (const edge of page.edges) yield edge.node;
    if (!page.pageInfo.hasNextPage || !page.pageInfo.endCursor) return;
    after = page.pageInfo.endCursor;
  }
}

/**
 * Walks a connection backward from its far end, one page of `pageSize` at a time (`last`/`before`),
 * yielding its nodes in reverse list order: oldest first for a newest-first list. Stops when
 * hasPreviousPage is false.
 */
export async function* paginateBackward<TNode>(fetchPage: (last: number, before: string | null) => Promise<Connection<TNode>>, pageSize = 100): AsyncGenerator<TNode, void, undefined> {
  let before: string | null = null;
  for (;;) {
    const page: Connection<TNode> = await fetchPage(pageSize, before);
    for (const edge of [...page.edges].reverse()) yield edge.node;
    if (!page.pageInfo.hasPreviousPage || !page.pageInfo.startCursor) return;
    before = page.pageInfo.startCursor;
  }
}
