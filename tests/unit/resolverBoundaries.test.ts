import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const RESOLVERS = join(process.cwd(), 'src', 'resolvers');

/**
 * What resolvers must not do, because tenant scoping lives below them: build a MongoDB filter,
 * reach a collection or the database, build a store themselves, or reach the every-tenant services
 * that the per-request scope is made from.
 */
const FORBIDDEN: [string, RegExp][] = [
  ['a MongoDB query operator', /['"]?\$(in|nin|or|and|not|nor|eq|ne|gt|gte|lt|lte|exists|regex|expr|elemMatch|set|max|min)['"]?\s*:/],
  ['the database or a collection', /\bapp\.db\b|\bcollections\(|\.collection\(/],
  ['a store built outside the scope', /new \w+(Store|Lookup)\(/],
  ["every tenant's records or events", /\bapp\.(tenants|events)\b/],
];

describe('resolvers stay above the tenant scoping', () => {
  const files = readdirSync(RESOLVERS).filter((f) => f.endsWith('.ts'));

  it('finds the resolvers', () => {
    expect(files.length).toBeGreaterThan(5);
  });

  it.each(files)('%s builds no filter and reaches tenant data only through the scope', (file) => {
    const source = readFileSync(join(RESOLVERS, file), 'utf8');
    const found = FORBIDDEN.filter(([, pattern]) => pattern.test(source)).map(([what]) => what);
    expect(found).toEqual([]);
  });
});
