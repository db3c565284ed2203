import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { JSONResolver } from 'graphql-scalars';

/**
 * ISO-8601 date-time with a mandatory `Z` or `±HH:MM` / `±HHMM` / `±HH` offset.
 * Seconds and a fraction of any length are optional (the fraction is cut to milliseconds).
 */
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function invalid(value: unknown, why: string): GraphQLError {
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return new GraphQLError(
    `DateTime cannot represent ${shown}: ${why}. Expected an ISO-8601 date-time with an explicit offset, e.g. "2024-05-01T12:00:00.000Z" or "2024-05-01T14:00:00+02:00".`,
  );
}

/** Parses an ISO-8601 date-time that carries an explicit offset or `Z`; throws a GraphQLError otherwise. */
export function parseIsoDateTime(value: unknown): Date {
  if (typeof value !== 'string') {
    throw invalid(value, `expected a string, got ${value === null ? 'null' : typeof value}`);
  }
  const m = ISO_DATE_TIME.exec(value);
  if (!m) {
    throw invalid(value, 'not an ISO-8601 date-time with an explicit UTC offset or Z');
  }
  const [, ys, mos, ds, hs, mis, ss, frac, zulu, sign, ohs, oms] = m;
  const year = Number(ys);
  const month = Number(mos);
  const day = Number(ds);
  const hour = Number(hs);
  const minute = Number(mis);
  const second = ss === undefined ? 0 : Number(ss);
  const millis = frac === undefined ? 0 : Number(frac.slice(0, 3).padEnd(3, '0'));
  if (month < 1 || month > 12) throw invalid(value, `month ${mos} out of range`);
  if (day < 1 || day > daysInMonth(year, month)) throw invalid(value, `day ${ds} out of range`);
  if (hour > 23) throw invalid(value, `hour ${hs} out of range`);
  if (minute > 59) throw invalid(value, `minute ${mis} out of range`);
  if (second > 59) throw invalid(value, `second ${ss} out of range`);
  let offsetMinutes = 0;
  if (!zulu) {
    const oh = Number(ohs);
    const om = oms === undefined ? 0 : Number(oms);
    if (oh > 23 || om > 59) throw invalid(value, 'UTC offset out of range');
    offsetMinutes = (sign === '-' ? -1 : 1) * (oh * 60 + om);
  }
  // setUTCFullYear/setUTCHours rather than Date.UTC, which maps years 0..99 onto 1900..1999.
  const wall = new Date(0);
  wall.setUTCFullYear(year, month - 1, day);
  wall.setUTCHours(hour, minute, second, millis);
  const date = new Date(wall.getTime() - offsetMinutes * 60_000);
  if (Number.isNaN(date.getTime())) throw invalid(value, 'out of the representable range');
  return date;
}

function serializeDateTime(value: unknown): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw invalid(value, 'invalid Date');
    return value.toISOString();
  }
  if (typeof value === 'string') return parseIsoDateTime(value).toISOString();
  if (typeof value === 'number' && Number.isFinite(value)) {
    const date = new Date(value);
    if (Number.isNaN(date.getTime())) throw invalid(value, 'out of the representable range');
    return date.toISOString();
  }
  throw invalid(value, 'expected a Date');
}

export const DateTimeScalar = new GraphQLScalarType<Date, string>({
  name: 'DateTime',
  description: 'ISO-8601 date-time string, always serialised in UTC with a `Z` suffix and millisecond precision.',
  serialize: serializeDateTime,
  parseValue: parseIsoDateTime,
  parseLiteral(ast: ValueNode): Date {
    if (ast.kind !== Kind.STRING) {
      throw new GraphQLError(`DateTime must be a string literal (ISO-8601 with an explicit offset), got ${ast.kind}.`, {
        nodes: ast,
      });
    }
    return parseIsoDateTime(ast.value);
  },
});

export const JSONScalar = new GraphQLScalarType({
  ...JSONResolver.toConfig(),
  name: 'JSON',
  description: 'Any JSON value.',
  specifiedByURL: undefined,
});
