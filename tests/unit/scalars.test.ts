import { describe, expect, it } from '@jest/globals';
import { parseValue } from 'graphql';
import { DateTimeScalar, JSONScalar, parseIsoDateTime } from '../../src/schema/scalars.js';
import { resolveJobTargetType } from '../../src/schema/target.type.js';

describe('DateTime scalar', () => {
  it('serialises Dates as toISOString()', () => {
    const d = new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 7));
    expect(DateTimeScalar.serialize(d)).toBe('2024-02-29T23:59:59.007Z');
    expect(DateTimeScalar.serialize('2024-02-29T23:59:59+01:00')).toBe('2024-02-29T22:59:59.000Z');
    expect(() => DateTimeScalar.serialize(new Date(NaN))).toThrow(/invalid Date/);
    expect(() => DateTimeScalar.serialize({})).toThrow(/DateTime cannot represent/);
  });

  it.each([
    ['2024-05-01T12:00:00Z', '2024-05-01T12:00:00.000Z'],
    ['2024-05-01T12:00:00.123Z', '2024-05-01T12:00:00.123Z'],
    ['2024-05-01T12:00:00.123456z', '2024-05-01T12:00:00.123Z'],
    ['2024-05-01t12:00Z', '2024-05-01T12:00:00.000Z'],
    ['2024-05-01T14:30:00+02:30', '2024-05-01T12:00:00.000Z'],
    ['2024-05-01T07:00:00-0500', '2024-05-01T12:00:00.000Z'],
    ['2024-05-01T00:00:00-05', '2024-05-01T05:00:00.000Z'],
    ['2024-12-31T23:30:00-01:00', '2025-01-01T00:30:00.000Z'],
    ['0050-01-01T00:00:00Z', '0050-01-01T00:00:00.000Z'],
  ])('parses %s', (input, expected) => {
    expect(parseIsoDateTime(input).toISOString()).toBe(expected);
    expect(DateTimeScalar.parseValue(input).toISOString()).toBe(expected);
  });

  it.each([
    '2024-05-01T12:00:00',
    '2024-05-01',
    '2024-05-01 12:00:00Z',
    'May 1, 2024 12:00 UTC',
    '2024-13-01T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '2024-05-01T24:00:00Z',
    '2024-05-01T12:60:00Z',
    '2024-05-01T12:00:00+25:00',
    ' 2024-05-01T12:00:00Z',
    '',
  ])('rejects %j', (input) => {
    expect(() => DateTimeScalar.parseValue(input)).toThrow(/DateTime cannot represent/);
  });

  it('rejects non-strings', () => {
    expect(() => DateTimeScalar.parseValue(1714564800000)).toThrow(/expected a string, got number/);
    expect(() => DateTimeScalar.parseValue(new Date())).toThrow(/expected a string/);
  });

  it('parses string literals with an explicit offset', () => {
    expect(DateTimeScalar.parseLiteral(parseValue('"2024-05-01T14:00:01.5+02:00"')).toISOString()).toBe('2024-05-01T12:00:01.500Z');
  });

  it('rejects literals without an offset, and non-string literals', () => {
    expect(() => DateTimeScalar.parseLiteral(parseValue('"2024-05-01"'))).toThrow(/DateTime cannot represent "2024-05-01"/);
    expect(() => DateTimeScalar.parseLiteral(parseValue('"2024-05-01T12:00:00"'))).toThrow(/explicit UTC offset/);
    expect(() => DateTimeScalar.parseLiteral(parseValue('1714564800000'))).toThrow(/DateTime must be a string literal/);
  });
});

describe('JSON scalar', () => {
  it('is named JSON with the contract description and passes values through', () => {
    expect(JSONScalar.name).toBe('JSON');
    expect(JSONScalar.description).toBe('Any JSON value.');
    expect(JSONScalar.parseValue({ a: [1] })).toEqual({ a: [1] });
    expect(JSONScalar.serialize('x')).toBe('x');
  });
});

describe('JobTarget resolveType', () => {
  it('resolves members from __typename or the domain shape', () => {
    expect(resolveJobTargetType({ kind: 'HANDLER', handler: 'noop' })).toBe('HandlerTarget');
    expect(resolveJobTargetType({ handler: 'sleep' })).toBe('HandlerTarget');
    expect(resolveJobTargetType({ __typename: 'HandlerTarget', handler: 'x' })).toBe('HandlerTarget');
    expect(resolveJobTargetType({ kind: 'HTTP', url: 'https://example.com/hook', method: 'POST', headers: [] })).toBe('HttpTarget');
    expect(resolveJobTargetType({ url: 'http://x', method: 'GET', headers: [] })).toBe('HttpTarget');
    expect(resolveJobTargetType({ __typename: 'HttpTarget', url: 'http://x' })).toBe('HttpTarget');
  });

  it('prefers __typename over the shape', () => {
    expect(resolveJobTargetType({ __typename: 'HandlerTarget', url: 'http://x' })).toBe('HandlerTarget');
  });

  it('throws a clear error for values of neither shape', () => {
    expect(() => resolveJobTargetType({})).toThrow(/JobTarget/);
    expect(() => resolveJobTargetType(null)).toThrow(/JobTarget/);
    expect(() => resolveJobTargetType('HttpTarget')).toThrow(/JobTarget/);
  });
});
