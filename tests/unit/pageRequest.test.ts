import { describe, expect, it } from '@jest/globals';
import { ObjectId } from 'mongodb';
import { BadUserInputError } from '../../src/errors/index.js';
import { encodeCursor } from '../../src/pagination/cursor.js';
import { parsePageRequest, toConnection, type ConnectionArgsLike, type PageRequest } from '../../src/pagination/pageRequest.js';

const ID_A = '65f0a1b2c3d4e5f601234567';
const ID_B = '507f1f77bcf86cd799439011';
/** Cursor of (2024-05-01T12:00:00.000Z, ID_A), built by hand: base64url of "1714564800000:<ID_A>". */
const CURSOR_A = Buffer.from(`1714564800000:${ID_A}`).toString('base64url');
/** Cursor of (2024-05-01T00:00:00.000Z, ID_B). */
const CURSOR_B = Buffer.from(`1714521600000:${ID_B}`).toString('base64url');

function rejection(args: ConnectionArgsLike): BadUserInputError {
  try {
    parsePageRequest(args);
  } catch (error) {
    expect(error).toBeInstanceOf(BadUserInputError);
    return error as BadUserInputError;
  }
  throw new Error(`parsePageRequest(${JSON.stringify(args)}) did not throw`);
}

describe('parsePageRequest', () => {
  it('defaults to the first 20 items', () => {
    expect(parsePageRequest({})).toEqual({ forward: true, limit: 20, after: null, before: null });
    expect(parsePageRequest({ first: null, last: null, after: null, before: null })).toEqual({
      forward: true,
      limit: 20,
      after: null,
      before: null,
    });
  });

  it('takes first as the limit of a forward page, 0 and 100 included', () => {
    expect(parsePageRequest({ first: 5 })).toEqual({ forward: true, limit: 5, after: null, before: null });
    expect(parsePageRequest({ first: 0 }).limit).toBe(0);
    expect(parsePageRequest({ first: 100 }).limit).toBe(100);
  });

  it('takes last as the limit of a backward page', () => {
    expect(parsePageRequest({ last: 7 })).toEqual({ forward: false, limit: 7, after: null, before: null });
    expect(parsePageRequest({ last: 100 }).limit).toBe(100);
  });

  it('decodes after and before into keyset positions', () => {
    const page = parsePageRequest({ first: 3, after: CURSOR_A });
    expect(page.forward).toBe(true);
    expect(page.after?.at.toISOString()).toBe('2024-05-01T12:00:00.000Z');
    expect(page.after?.id.toHexString()).toBe(ID_A);
    expect(page.before).toBeNull();

    const back = parsePageRequest({ last: 2, before: CURSOR_B });
    expect(back.forward).toBe(false);
    expect(back.limit).toBe(2);
    expect(back.before?.at.toISOString()).toBe('2024-05-01T00:00:00.000Z');
    expect(back.before?.id.toHexString()).toBe(ID_B);
    expect(back.after).toBeNull();
  });

  it('treats an empty cursor string as absent', () => {
    expect(parsePageRequest({ after: '', before: '' })).toEqual({ forward: true, limit: 20, after: null, before: null });
  });

  it.each([
    ['first', { first: 101 }],
    ['first', { first: 1000 }],
    ['first', { first: -1 }],
    ['first', { first: 1.5 }],
    ['first', { first: Number.NaN }],
    ['first', { first: Number.POSITIVE_INFINITY }],
    ['last', { last: 101 }],
    ['last', { last: -5 }],
    ['last', { last: 2.25 }],
  ])('rejects %s out of range or not an integer: %j', (field, args) => {
    const error = rejection(args);
    expect(error.code).toBe('BAD_USER_INPUT');
    expect(error.details).toEqual({ field });
    expect(error.message).toBe(`${field} must be an integer between 0 and 100`);
  });

  it('rejects first and last together', () => {
    const error = rejection({ first: 10, last: 10 });
    expect(error.code).toBe('BAD_USER_INPUT');
    expect(error.message).toBe('Pass first or last, not both');
    expect(error.details).toEqual({ field: 'last' });
    expect(rejection({ first: 0, last: 0 }).message).toBe('Pass first or last, not both');
  });

  it('rejects a cursor not produced by the API, naming the argument', () => {
    const after = rejection({ first: 10, after: 'bm9wZQ' });
    expect(after.code).toBe('BAD_USER_INPUT');
    expect(after.details).toEqual({ field: 'after' });
    expect(after.message).toMatch(/^after /);

    const before = rejection({ last: 10, before: 'not a cursor' });
    expect(before.details).toEqual({ field: 'before' });
    expect(before.message).toMatch(/^before /);
  });
});

interface Row {
  name: string;
  at: Date;
  _id: ObjectId;
}

/** Rows named by their hour on 2024-05-01 (UTC), so the order is visible in the assertions. */
function row(hour: number): Row {
  return { name: `h${hour}`, at: new Date(Date.UTC(2024, 4, 1, hour)), _id: new ObjectId(hour.toString(16).padStart(24, '0')) };
}

const cursorOf = (r: Row): string => encodeCursor({ at: r.at, id: r._id });
const toNode = (r: Row): unknown => ({ name: r.name });
const names = (edges: { node: unknown }[]): string[] => edges.map((e) => (e.node as { name: string }).name);

describe('toConnection', () => {
  const position = { at: new Date(Date.UTC(2024, 4, 1, 12)), id: new ObjectId(ID_A) };

  it('keeps `limit` rows of a forward page and reports hasNextPage when the extra row came back', () => {
    const page: PageRequest = { forward: true, limit: 2, after: null, before: null };
    // Newest first, fetched with limit + 1 = 3 rows.
    const conn = toConnection([row(9), row(8), row(7)], page, cursorOf, toNode);
    expect(names(conn.edges)).toEqual(['h9', 'h8']);
    expect(conn.edges[0].cursor).toBe(Buffer.from(`${Date.UTC(2024, 4, 1, 9)}:000000000000000000000009`).toString('base64url'));
    expect(conn.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: cursorOf(row(9)),
      endCursor: cursorOf(row(8)),
    });
  });

  it('reports no next page when a forward page comes back short, and a previous page after a cursor', () => {
    const page: PageRequest = { forward: true, limit: 3, after: position, before: null };
    const conn = toConnection([row(11), row(10)], page, cursorOf, toNode);
    expect(names(conn.edges)).toEqual(['h11', 'h10']);
    expect(conn.pageInfo).toEqual({
      hasNextPage: false,
      hasPreviousPage: true,
      startCursor: cursorOf(row(11)),
      endCursor: cursorOf(row(10)),
    });
  });

  it('reports no next page when exactly `limit` rows come back', () => {
    const page: PageRequest = { forward: true, limit: 2, after: null, before: null };
    expect(toConnection([row(9), row(8)], page, cursorOf, toNode).pageInfo.hasNextPage).toBe(false);
  });

  it('reverses a backward page (fetched nearest first) into newest-first order', () => {
    const page: PageRequest = { forward: false, limit: 2, after: null, before: position };
    // Items newer than the 12:00 cursor, fetched oldest (nearest) first, with one extra row.
    const conn = toConnection([row(13), row(14), row(15)], page, cursorOf, toNode);
    expect(names(conn.edges)).toEqual(['h14', 'h13']);
    expect(conn.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: true,
      startCursor: cursorOf(row(14)),
      endCursor: cursorOf(row(13)),
    });
  });

  it('reports no previous page when a backward page comes back short, nor a next page without before', () => {
    const page: PageRequest = { forward: false, limit: 3, after: null, before: null };
    const conn = toConnection([row(1), row(2)], page, cursorOf, toNode);
    expect(names(conn.edges)).toEqual(['h2', 'h1']);
    expect(conn.pageInfo).toEqual({
      hasNextPage: false,
      hasPreviousPage: false,
      startCursor: cursorOf(row(2)),
      endCursor: cursorOf(row(1)),
    });
  });

  it('does not reorder the caller’s array', () => {
    const rows = [row(13), row(14), row(15)];
    toConnection(rows, { forward: false, limit: 2, after: null, before: position }, cursorOf, toNode);
    expect(rows.map((r) => r.name)).toEqual(['h13', 'h14', 'h15']);
  });

  it('gives null cursors for an empty page', () => {
    for (const page of [
      { forward: true, limit: 20, after: null, before: null },
      { forward: false, limit: 20, after: null, before: null },
      { forward: true, limit: 0, after: position, before: null },
    ] satisfies PageRequest[]) {
      const conn = toConnection([], page, cursorOf, toNode);
      expect(conn.edges).toEqual([]);
      expect(conn.pageInfo.startCursor).toBeNull();
      expect(conn.pageInfo.endCursor).toBeNull();
      expect(conn.pageInfo.hasNextPage).toBe(false);
    }
  });

  it('returns no edges but hasNextPage for first: 0 when rows exist', () => {
    const conn = toConnection([row(9)], { forward: true, limit: 0, after: null, before: null }, cursorOf, toNode);
    expect(conn.edges).toEqual([]);
    expect(conn.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: false, startCursor: null, endCursor: null });
  });
});
