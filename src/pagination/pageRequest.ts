import { BadUserInputError } from '../errors/index.js';
import { decodeCursor, type CursorPosition } from './cursor.js';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

export interface ConnectionArgsLike {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/**
 * A validated page request over a list sorted newest first.
 * `forward`: the `limit` items after `after` (older ones); backward: the `limit` items before `before` (newer ones).
 */
export interface PageRequest {
  forward: boolean;
  limit: number;
  after: CursorPosition | null;
  before: CursorPosition | null;
}

function size(value: number | null | undefined, name: string): number | null {
  if (value === null || value === undefined) return null;
  if (!Number.isInteger(value) || value < 0 || value > MAX_PAGE_SIZE) {
    throw new BadUserInputError(`${name} must be an integer between 0 and ${MAX_PAGE_SIZE}`, name);
  }
  return value;
}

export function parsePageRequest(args: ConnectionArgsLike): PageRequest {
  const first = size(args.first, 'first');
  const last = size(args.last, 'last');
  if (first !== null && last !== null) throw new BadUserInputError('Pass first or last, not both', 'last');
  const after = args.after ? decodeCursor(args.after, 'after') : null;
  const before = args.before ? decodeCursor(args.before, 'before') : null;
  const forward = last === null;
  return { forward, limit: forward ? (first ?? DEFAULT_PAGE_SIZE) : last, after, before };
}

/** Relay connection shape built from a page fetched with `limit + 1` rows (the extra row only says there is more). */
export function toConnection<T>(
  rows: T[],
  page: PageRequest,
  cursorOf: (row: T) => string,
  toNode: (row: T) => unknown,
): {
  edges: { cursor: string; node: unknown }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
} {
  const more = rows.length > page.limit;
  const kept = rows.slice(0, page.limit);
  // Backward pages are fetched nearest-first (oldest first), then shown in list order (newest first).
  if (!page.forward) kept.reverse();
  const edges = kept.map((row) => ({ cursor: cursorOf(row), node: toNode(row) }));
  return {
    edges,
    pageInfo: {
      hasNextPage: page.forward ? more : page.before !== null,
      hasPreviousPage: page.forward ? page.after !== null : more,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
  };
}
