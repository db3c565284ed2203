import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SRC = join(process.cwd(), 'src');
const TOOLS = join(process.cwd(), 'tools');

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
  ["the scheduler's cross-tenant store", /\bSchedulerStore\b/],
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
  ['main.ts', 'cli'],
  ['kairos.ts'],
  ['roles'],
  ['config.ts'],
  ['config'],
  ['api'],
  ['resolvers'],
  ['schema'],
  ['auth'],
  ['executions', 'apiKeys', 'tenants'],
  ['jobs'],
  ['alerts'],
  ['scheduler', 'workers'],
  ['transitions'],
  ['quotas'],
  ['changes'],
  ['queue', 'events', 'store'],
  ['pagination', 'ids', 'metrics', 'tracing', 'redis'],
  ['domain'],
  ['errors', 'clock.ts', 'logger.ts'],
];

/** The relative and `#` (package.json "imports") specifiers a source file imports. */
function specifiers(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]((?:\.{1,2}\/|#)[^'"]+)['"]/g)].map((m) => m[1]);
}

/** Where a specifier of `file` points, relative to the project root; `#` ones as written. */
const targetOf = (file: string, specifier: string) =>
  specifier.startsWith('#') ? specifier : relative(process.cwd(), resolve(dirname(file), specifier));

/** The src/-relative paths of the modules a source file imports from inside src/ (`.js` specifiers as `.ts`). */
function localImports(file: string): string[] {
  return specifiers(file)
    .filter((s) => !s.startsWith('#'))
    .map((s) => relative(SRC, resolve(dirname(file), s)).replace(/\.js$/, '.ts'))
    .filter((t) => !t.startsWith('..'));
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

/** An import a file of src/ must not make: anything outside src/ (tools/, tests/, scripts/), or `#kairos/*`, which is for the tools. */
const leavesSrc = (target: string) => target.startsWith('#') || !target.startsWith('src/');
/** An import a file of tools/ must not make: a relative path out of tools/ (into src/, tests/ or elsewhere). */
const leavesToolsByPath = (target: string) => !target.startsWith('#') && !target.startsWith('tools/');

/**
 * The operational tooling (chaos run, benchmarks, audit reads, local servers) lives in tools/, on top
 * of the product: it may import src/, src/ never imports it. Tools reach src/ through `#kairos/*`
 * only, which node resolves to dist/ and the type check and jest to src/: a relative path into src/
 * would point at sources that do not exist under dist/tools.
 */
describe('tooling stays out of the product', () => {
  const srcEdges = sourcesUnder(SRC).flatMap((f) =>
    specifiers(f).map((s) => ({ file: relative(process.cwd(), f), target: targetOf(f, s) })),
  );
  const toolEdges = sourcesUnder(TOOLS).flatMap((f) =>
    specifiers(f).map((s) => ({ file: relative(process.cwd(), f), target: targetOf(f, s) })),
  );

  it('finds the tools and their imports of the product', () => {
    expect(toolEdges.filter(({ target }) => target.startsWith('#kairos/')).length).toBeGreaterThan(50);
  });

  it('src/ imports nothing outside src/', () => {
    expect(srcEdges.filter(({ target }) => leavesSrc(target)).map(({ file, target }) => `${file} -> ${target}`)).toEqual([]);
  });

  it('tools/ imports src/ through #kairos/* only', () => {
    expect(toolEdges.filter(({ target }) => leavesToolsByPath(target)).map(({ file, target }) => `${file} -> ${target}`)).toEqual([]);
  });

  it('would catch src/ importing a tool (the check is not vacuous)', () => {
    expect(leavesSrc(targetOf(join(SRC, 'kairos.ts'), '../tools/chaos/checkRun.js'))).toBe(true);
    expect(leavesSrc(targetOf(join(SRC, 'store/jobStore.ts'), '#kairos/store/indexes.js'))).toBe(true);
    expect(leavesSrc(targetOf(join(SRC, 'store/jobStore.ts'), './indexes.js'))).toBe(false);
    expect(leavesToolsByPath(targetOf(join(TOOLS, 'chaos/runChaos.ts'), '../../src/config.js'))).toBe(true);
    expect(leavesToolsByPath(targetOf(join(TOOLS, 'chaos/runChaos.ts'), '../servers/localServers.js'))).toBe(false);
  });
});
