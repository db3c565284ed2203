// `npm run -s tests:for -- src/workers/wakeWaiter.ts [more files]`: the test files that test a module,
// one path a line: those that import it (by a relative path or `#kairos/*`), those that import a
// helper under tests/ that does (tests/support/...), those that name its path (a topic suite's header
// lists the modules it covers) and the one named after it (`wakeWaiter.test.ts` or `workers.wakeWaiter.test.ts`).
// So `npm run test:file -- $(npm run -s tests:for -- src/x.ts)` runs them. Exits 1 when there is none.
// Plain JavaScript, so it runs without a build; docs/contributing.md, "Finding a module's tests".
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** An import of a relative path or of `#kairos/*` (package.json "imports"): `from '...'`, `import('...')`, `import '...'`. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]((?:\.{1,2}\/|#kairos\/)[^'"]+)['"]/g;

/** A module's path relative to the project root, with `/`, and `.ts` for the `.js` the imports name. */
export function moduleOf(path) {
  const plain = posix.normalize(path.split(sep).join('/')).replace(/^\.\//, '');
  return plain.replace(/\.js$/, '.ts');
}

/** The modules (root-relative, see moduleOf) that `source`, the file at root-relative `file`, imports. */
export function importsOf(file, source) {
  return [...source.matchAll(SPECIFIER)].map(([, specifier]) =>
    moduleOf(specifier.startsWith('#kairos/') ? `src/${specifier.slice('#kairos/'.length)}` : posix.join(posix.dirname(file), specifier)),
  );
}

const isTest = (path) => /\.test\.[cm]?[jt]s$/.test(path);
/** `wakeWaiter`, `wake-waiter` and `wake_waiter` name the same module. */
const plain = (name) => name.replace(/[-_]/g, '').toLowerCase();
/** The test's name without `.test.ts`: `tenantWait`, or `workers.tenantWait` (its folder first). */
const testNameOf = (path) => plain(posix.basename(path).replace(/\.test\.[cm]?[jt]s$/, ''));

/** Whether the test at `path` is named after `module`: `<module>.test.ts` or `<folder>.<module>.test.ts`. */
export function namedAfter(path, module) {
  const name = plain(posix.basename(module).replace(/\.[cm]?[jt]s$/, ''));
  const folder = plain(posix.basename(posix.dirname(module)));
  return [name, `${folder}.${name}`].includes(testNameOf(path));
}

const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Whether `source` names `module` by its path, as a topic suite's header says which modules it covers
 * (`src/workers/overlapGuard.ts`, or `workers/overlapGuard.ts` for a module of src/).
 */
export function names(source, module) {
  const path = module.startsWith('src/') ? module.slice('src/'.length) : module;
  return new RegExp(`(^|[^\\w/.-]|src/)${escaped(path)}(?![\\w/])`, 'm').test(source);
}

/**
 * The test files among `files` (root-relative path → source: the files under tests/) that test the
 * module `target`: they import it, or import a helper among `files` that reaches it (helpers only:
 * a test importing another test is not a path to it), or name its path, or are named after it. Sorted.
 */
export function testsFor(target, files) {
  const module = moduleOf(target);
  const imports = new Map([...files].map(([path, source]) => [path, importsOf(path, source)]));
  const reaching = new Set();
  for (let grew = true; grew;) {
    grew = false;
    for (const [path, targets] of imports) {
      if (reaching.has(path)) continue;
      if (targets.some((t) => t === module || (reaching.has(t) && !isTest(t)))) {
        reaching.add(path);
        grew = true;
      }
    }
  }
  return [...files]
    .filter(([path, source]) => isTest(path) && (reaching.has(path) || names(source, module) || namedAfter(path, module)))
    .map(([path]) => path)
    .sort();
}

function sourcesUnder(root, dir) {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = posix.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourcesUnder(root, path);
    return /\.[cm]?[jt]s$/.test(entry.name) ? [path] : [];
  });
}

function main(args) {
  const root = dirname(dirname(fileURLToPath(import.meta.url)));
  if (args.length === 0) {
    process.stderr.write('usage: npm run -s tests:for -- src/path/to/module.ts [more modules]\n');
    return 2;
  }
  // npm runs scripts from the project root; a path is the caller's, relative to where they typed it.
  const modules = args.map((arg) => relative(root, resolve(process.env.INIT_CWD ?? process.cwd(), arg)));
  const missing = modules.filter((m) => !existsSync(join(root, moduleOf(m))));
  if (missing.length > 0) {
    process.stderr.write(`no such module: ${missing.map(moduleOf).join(', ')}\n`);
    return 2;
  }
  const files = new Map(sourcesUnder(root, 'tests').map((path) => [path, readFileSync(join(root, path), 'utf8')]));
  const found = [...new Set(modules.flatMap((m) => testsFor(m, files)))].sort();
  if (found.length === 0) {
    process.stderr.write(`no test file imports, names or is named after ${modules.map(moduleOf).join(', ')}\n`);
    return 1;
  }
  process.stdout.write(`${found.join('\n')}\n`);
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main(process.argv.slice(2));
