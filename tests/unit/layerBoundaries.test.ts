import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

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

/**
 * Folders (and the top-level files) of src/, top layer first, as docs/architecture.md draws them:
 * a file imports from its own folder and from layers below its own, never from a peer in its
 * layer or from above. A new folder fails the test until it is given a layer here.
 */
const LAYERS: string[][] = [
  ['main.ts', 'cli', 'bench'],
  ['kairos.ts', 'chaos'],
  ['config.ts'],
  ['api'],
  ['resolvers'],
  ['schema'],
  ['auth'],
  ['executions', 'apiKeys', 'tenants'],
  ['jobs'],
  ['scheduler', 'workers'],
  ['quotas'],
  ['queue', 'events', 'store'],
  ['pagination', 'ids', 'metrics', 'tracing', 'redis'],
  ['domain'],
  ['errors', 'clock.ts', 'logger.ts'],
];


/** The src/-relative paths of the modules a source file imports from inside src/ (`.js` specifiers as `.ts`). */
function localImports(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const specifiers = [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]);
  return specifiers.map((s) => relative(SRC, resolve(dirname(file), s)).replace(/\.js$/, '.ts')).filter((t) => !t.startsWith('..'));
}

/** The first path segment: the folder, or the file itself for a top-level file. */
const unitOf = (path: string) => path.split('/')[0];
const layerOf = (path: string) => LAYERS.findIndex((layer) => layer.includes(unitOf(path)));

/** An import from another folder of the same layer or of a higher one. */
const isUpward = (file: string, target: string) => unitOf(file) !== unitOf(target) && layerOf(target) <= layerOf(file);

describe('import direction between the folders of src/', () => {
  const edges = sourcesUnder(SRC).flatMap((f) => localImports(f).map((target) => ({ file: relative(SRC, f), target })));

  it('finds the imports', () => {
    expect(edges.length).toBeGreaterThan(200);
    expect(edges).toContainEqual({ file: 'kairos.ts', target: 'config.ts' });
  });

  it('gives every folder and top-level file of src/ a layer', () => {
    const units = new Set(sourcesUnder(SRC).map((f) => unitOf(relative(SRC, f))));
    expect([...units].filter((unit) => layerOf(unit) < 0)).toEqual([]);
  });

  it('imports point down', () => {
    const upward = edges.filter(({ file, target }) => isUpward(file, target)).map(({ file, target }) => `${file} -> ${target}`);
    expect(upward).toEqual([]);
  });

  it('would catch an upward import (the check is not vacuous)', () => {
    expect(isUpward('store/jobStore.ts', 'api/httpServer.ts')).toBe(true);
    expect(isUpward('scheduler/sweepDueJobs.ts', 'workers/workerRole.ts')).toBe(true);
    expect(isUpward('api/httpServer.ts', 'store/jobStore.ts')).toBe(false);
    expect(isUpward('store/jobStore.ts', 'store/runStore.ts')).toBe(false);
  });
});
