import { nestedDeeperThan } from '../domain/nesting.js';

/**
 * Deepest nesting of `{`, `[` and `(` accepted in a GraphQL document. graphql-js parses, validates
 * and executes recursively, so a document nested a few thousand deep overflows the stack before
 * any validation rule runs; this is checked on the text first. 100 leaves room for MAX_DEPTH (12)
 * selections around a literal payload at its own limit (64).
 */
export const MAX_DOCUMENT_NESTING = 100;
/** Deepest nesting of objects and arrays accepted in an operation's variables (payloads allow 64, inside an input or two). */
export const MAX_VARIABLES_NESTING = 100;

/**
 * True when `source` nests brackets deeper than `limit`. One pass, no recursion: strings, block
 * strings and comments are skipped so brackets inside them do not count. Malformed text is left
 * to the parser, which then refuses it cheaply.
 */
export function documentNestedDeeperThan(source: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 0x23 /* # */) {
      while (i < source.length && source[i] !== '\n' && source[i] !== '\r') i++;
    } else if (c === 0x22 /* " */) {
      if (source.startsWith('"""', i)) {
        // A block string's only escape is \""" (part of the string, not its end).
        let close = source.indexOf('"""', i + 3);
        while (close > 0 && source[close - 1] === '\\') close = source.indexOf('"""', close + 3);
        if (close < 0) return false;
        i = close + 2;
      } else {
        i++;
        while (i < source.length && source[i] !== '"' && source[i] !== '\n') i += source[i] === '\\' ? 2 : 1;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */ || c === 0x28 /* ( */) {
      depth++;
      if (depth > limit) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */ || c === 0x29 /* ) */) {
      depth = Math.max(0, depth - 1);
    }
  }
  return false;
}

/**
 * Why a request must be refused before it is parsed, or null: its document or its variables nest
 * beyond the limits above. Both transports call it before graphql-js sees the request.
 */
export function nestingRefusal(query: unknown, variables: unknown): string | null {
  if (typeof query === 'string' && documentNestedDeeperThan(query, MAX_DOCUMENT_NESTING)) {
    return `The document nests braces, brackets or parentheses more than ${MAX_DOCUMENT_NESTING} levels deep`;
  }
  if (nestedDeeperThan(variables, MAX_VARIABLES_NESTING)) {
    return `The variables nest objects and arrays more than ${MAX_VARIABLES_NESTING} levels deep`;
  }
  return null;
}
