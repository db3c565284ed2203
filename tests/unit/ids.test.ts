import { describe, expect, it } from '@jest/globals';
import { ObjectId } from 'mongodb';
import { BadUserInputError } from '../../src/errors/index.js';
import { fromGlobalId, toGlobalId } from '../../src/ids/globalId.js';
import { decodeCursor, encodeCursor } from '../../src/pagination/cursor.js';

const HEX = '507f1f77bcf86cd799439011';
/** `printf 'Job:507f1f77bcf86cd799439011' | base64`, without the `==` padding. */
const JOB_GLOBAL_ID = 'Sm9iOjUwN2YxZjc3YmNmODZjZDc5OTQzOTAxMQ';
/** `printf 'Execution:65f0a1b2c3d4e5f601234567' | base64`, without the `==` padding. */
const EXECUTION_GLOBAL_ID = 'RXhlY3V0aW9uOjY1ZjBhMWIyYzNkNGU1ZjYwMTIzNDU2Nw';

const b64url = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

describe('toGlobalId', () => {
  it('encodes `<Type>:<hex id>` as base64url without padding', () => {
    expect(toGlobalId('Job', new ObjectId(HEX))).toBe(JOB_GLOBAL_ID);
    expect(toGlobalId('Job', HEX)).toBe(JOB_GLOBAL_ID);
    expect(toGlobalId('Execution', '65f0a1b2c3d4e5f601234567')).toBe(EXECUTION_GLOBAL_ID);
  });

  it('only uses the base64url alphabet (no +, / or = padding) for every node type', () => {
    // 28, 34 and 31 bytes: standard base64 would end these with "==" or "=".
    for (const type of ['Job', 'Execution', 'ApiKey'] as const) {
      for (let i = 0; i < 50; i++) {
        const id = toGlobalId(type, new ObjectId());
        expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
      }
    }
  });

  it('gives different ids to different types of the same ObjectId', () => {
    const ids = new Set([toGlobalId('Job', HEX), toGlobalId('Execution', HEX), toGlobalId('ApiKey', HEX)]);
    expect(ids.size).toBe(3);
  });
});

describe('fromGlobalId', () => {
  it('decodes a known id', () => {
    const decoded = fromGlobalId(JOB_GLOBAL_ID);
    expect(decoded?.type).toBe('Job');
    expect(decoded?.id).toBeInstanceOf(ObjectId);
    expect(decoded?.id.toHexString()).toBe(HEX);
  });

  it('round-trips every node type', () => {
    for (const type of ['Job', 'Execution', 'ApiKey'] as const) {
      const oid = new ObjectId();
      const decoded = fromGlobalId(toGlobalId(type, oid), type);
      expect(decoded?.type).toBe(type);
      expect(decoded?.id.equals(oid)).toBe(true);
    }
  });

  it('accepts the id without an expected type', () => {
    expect(fromGlobalId(EXECUTION_GLOBAL_ID)?.type).toBe('Execution');
  });

  it('returns null for an id of another type than expected', () => {
    expect(fromGlobalId(JOB_GLOBAL_ID, 'Execution')).toBeNull();
    expect(fromGlobalId(JOB_GLOBAL_ID, 'ApiKey')).toBeNull();
    expect(fromGlobalId(EXECUTION_GLOBAL_ID, 'Job')).toBeNull();
  });

  it.each([
    ['empty string', ''],
    ['plain text', 'not-an-id'],
    ['a raw ObjectId hex', HEX],
    ['unknown type', b64url(`Tenant:${HEX}`)],
    ['lower-case type', b64url(`job:${HEX}`)],
    ['upper-case hex', b64url(`Job:${HEX.toUpperCase()}`)],
    ['hex too short', b64url(`Job:${HEX.slice(1)}`)],
    ['hex too long', b64url(`Job:${HEX}0`)],
    ['trailing text', b64url(`Job:${HEX}:x`)],
    ['no separator', b64url(`Job${HEX}`)],
    ['non-hex characters', b64url('Job:zzzzzzzzzzzzzzzzzzzzzzzz')],
    ['a valid id with stray characters', `${JOB_GLOBAL_ID}!!!!`],
    ['a valid id in standard base64 with padding', Buffer.from(`Job:${HEX}`).toString('base64') + '='],
  ])('returns null for a malformed id (%s)', (_label, value) => {
    expect(fromGlobalId(value)).toBeNull();
    expect(fromGlobalId(value, 'Job')).toBeNull();
  });

  it('returns null for an id over 100 characters, even one that would decode to a valid id', () => {
    // Base64 decoding skips whitespace, so this 108-character value decodes to "Job:<hex>".
    const padded = JOB_GLOBAL_ID + ' '.repeat(70);
    expect(padded.length).toBe(108);
    expect(Buffer.from(padded, 'base64url').toString('utf8')).toBe(`Job:${HEX}`);
    expect(fromGlobalId(padded)).toBeNull();
    expect(fromGlobalId('A'.repeat(10_000))).toBeNull();
  });

  it('returns null for a value that is not a string', () => {
    expect(fromGlobalId(42 as unknown as string)).toBeNull();
    expect(fromGlobalId(null as unknown as string)).toBeNull();
    expect(fromGlobalId(undefined as unknown as string)).toBeNull();
  });
});

describe('cursors', () => {
  const position = { at: new Date(Date.UTC(2024, 4, 1)), id: new ObjectId(HEX) };

  it('encode `<epoch ms>:<hex id>` as base64url', () => {
    // 2024-05-01T00:00:00Z is 1714521600 s; `printf '1714521600000:507f...' | base64` without "=".
    expect(encodeCursor(position)).toBe('MTcxNDUyMTYwMDAwMDo1MDdmMWY3N2JjZjg2Y2Q3OTk0MzkwMTE');
  });

  it('round-trip the instant (to the millisecond) and the id', () => {
    const positions = [
      position,
      { at: new Date(Date.UTC(2031, 11, 31, 23, 59, 59, 999)), id: new ObjectId('65f0a1b2c3d4e5f601234567') },
      { at: new Date(0), id: new ObjectId('000000000000000000000000') },
      { at: new Date(-86_400_000), id: new ObjectId('ffffffffffffffffffffffff') },
    ];
    for (const p of positions) {
      const decoded = decodeCursor(encodeCursor(p), 'after');
      expect(decoded.at.getTime()).toBe(p.at.getTime());
      expect(decoded.id.toHexString()).toBe(p.id.toHexString());
    }
  });

  it('decode a hand-built cursor', () => {
    const decoded = decodeCursor(b64url('1714564800123:65f0a1b2c3d4e5f601234567'), 'before');
    expect(decoded.at.toISOString()).toBe('2024-05-01T12:00:00.123Z');
    expect(decoded.id.toHexString()).toBe('65f0a1b2c3d4e5f601234567');
  });

  it.each([
    ['empty', ''],
    ['plain text', 'garbage'],
    ['a global id', JOB_GLOBAL_ID],
    ['no id', b64url('1714521600000')],
    ['no instant', b64url(`:${HEX}`)],
    ['non-numeric instant', b64url(`abc:${HEX}`)],
    ['fractional instant', b64url(`1.5:${HEX}`)],
    ['instant with 16 digits', b64url(`1234567890123456:${HEX}`)],
    ['short id', b64url(`1714521600000:${HEX.slice(2)}`)],
    ['upper-case id', b64url(`1714521600000:${HEX.toUpperCase()}`)],
    ['over 100 characters', `${b64url(`1714521600000:${HEX}`)}${' '.repeat(60)}`],
  ])('reject a malformed cursor (%s) with BAD_USER_INPUT naming the argument', (_label, value) => {
    for (const argument of ['after', 'before']) {
      let caught: unknown;
      try {
        decodeCursor(value, argument);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(BadUserInputError);
      const error = caught as BadUserInputError;
      expect(error.code).toBe('BAD_USER_INPUT');
      expect(error.details).toEqual({ field: argument });
      expect(error.message).toBe(`${argument} is not a cursor returned by this API`);
    }
  });
});
