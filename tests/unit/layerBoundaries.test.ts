import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const SRC = join(process.cwd(), 'src');

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function offences(file: string, rules: [string, RegExp][]): string[] {
  const source = readFileSync(file, 'utf8');
  return rules.filter(([, pattern]) => pattern.test(source)).map(([what]) => what);
}

const MONGO_QUERIES: [string, RegExp][] = [
  ['a MongoDB query operator', /['"]?\$(in|nin|or|and|not|nor|eq|ne|gt|gte|lt|lte|exists|regex|expr|elemMatch|set|max|min)['"]?\s*:/],
  ['a collection', /\bcollections\(|\.collection\(/],
];

/**
 * Resolvers sit above the tenant scoping: besides building no query, they reach neither the
 * database nor every tenant's records or events, and build no store; the per-request scope is
 * their only way to tenant data.
 */
const RESOLVER_RULES: [string, RegExp][] = [
  ...MONGO_QUERIES,
  ['the database', /\bapp\.db\b/],
  ['a store built outside the scope', /new \w+(Store|Lookup)\(/],
  ["every tenant's records or events", /\bapp\.(tenants|events)\b/],
];

describe('layer boundaries that keep the tenant scoping in one place', () => {
  const outsideStore = sourcesUnder(SRC).filter((f) => !relative(SRC, f).startsWith('store/'));
  const resolvers = sourcesUnder(join(SRC, 'resolvers'));

  it('finds the sources', () => {
    expect(resolvers.length).toBeGreaterThan(5);
    expect(outsideStore.length).toBeGreaterThan(resolvers.length);
  });

  it('every MongoDB query is in src/store, which adds the tenant to it', () => {
    const found = outsideStore.flatMap((f) => offences(f, MONGO_QUERIES).map((what) => `${relative(SRC, f)}: ${what}`));
    expect(found).toEqual([]);
  });

  it.each(resolvers.map((f) => relative(SRC, f)))('%s reaches tenant data only through the scope', (file) => {
    expect(offences(join(SRC, file), RESOLVER_RULES)).toEqual([]);
  });
});
