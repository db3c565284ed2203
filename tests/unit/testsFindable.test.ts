import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import ts from 'typescript';

interface TestsForScript {
  testsFor: (target: string, files: Map<string, string>) => string[];
}

// The finding is `npm run tests:for`'s own (scripts/tests-for.mjs, plain JavaScript, loaded untyped),
// so this check and the command a developer runs cannot disagree.
const script = '../../scripts/tests-for.mjs';
const { testsFor } = (await import(script)) as TestsForScript;

const ROOT = process.cwd();

/**
 * Modules that have no test under tests/, each with where it is tested or why it is not. Named
 * without `.ts`, so that tests:for does not take this file for their test. An entry whose module
 * is gone, has nothing to test or has a test now fails the check below: take it out.
 */
const NOT_UNDER_TESTS: Record<string, string> = {
  'src/api/uiRoutes': "the dashboard's pages, assets and CSP are checked by the browser tests, ui/tests/browser.test.mjs (npm run test:ui)",
  'src/cli/printSchema':
    '`npm run print-schema` writes what tests/unit/schemaContract.test.ts compares schema.graphql with; the command itself runs in no test',
};

function sourcesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = posix.join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(path);
    return /\.[cm]?[jt]s$/.test(entry.name) ? [path] : [];
  });
}

/** Whether a top-level statement is gone at run time: a type, an interface, a type-only import or export. */
function typeOnly(statement: ts.Statement): boolean {
  if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) return true;
  if (ts.isImportDeclaration(statement)) {
    const clause = statement.importClause;
    if (!clause) return false; // `import './x.js'` runs x
    const named = clause.namedBindings;
    return (
      clause.isTypeOnly || (!clause.name && named !== undefined && ts.isNamedImports(named) && named.elements.every((e) => e.isTypeOnly))
    );
  }
  if (ts.isExportDeclaration(statement)) {
    const named = statement.exportClause;
    return statement.isTypeOnly || (named !== undefined && ts.isNamedExports(named) && named.elements.every((e) => e.isTypeOnly));
  }
  return false;
}

/**
 * A module with no behaviour of its own to test: only types and interfaces (the settings' shapes,
 * the ports a role is handed), or an index that only re-exports other modules.
 */
function nothingToTestIn(source: string): boolean {
  const file = ts.createSourceFile('module.ts', source, ts.ScriptTarget.Latest);
  return file.statements.every((s) => typeOnly(s) || (ts.isExportDeclaration(s) && s.moduleSpecifier !== undefined));
}

const nothingToTest = (module: string) => nothingToTestIn(readFileSync(join(ROOT, module), 'utf8'));

describe('every module of src/ has a test that `npm run tests:for` finds (docs/contributing.md, "Finding a module\'s tests")', () => {
  const tests = new Map(sourcesUnder('tests').map((path) => [path, readFileSync(join(ROOT, path), 'utf8')]));
  const modules = sourcesUnder('src');
  const excepted = (module: string) => Object.hasOwn(NOT_UNDER_TESTS, module.replace(/\.[cm]?[jt]s$/, ''));

  it('reads the sources and the tests', () => {
    expect(modules.length).toBeGreaterThan(100);
    expect(tests.size).toBeGreaterThan(50);
  });

  it('finds one for each: name a test after the module, import it, or add its path to the `// Covers:` line of the suite that tests it', () => {
    const unfound = modules.filter((m) => !excepted(m) && !nothingToTest(m) && testsFor(m, tests).length === 0);
    expect(unfound).toEqual([]);
  });

  it('keeps its exceptions to modules that exist, have something to test and still no test under tests/', () => {
    const stale = Object.keys(NOT_UNDER_TESTS).filter((name) => {
      const module = modules.find((m) => m.replace(/\.[cm]?[jt]s$/, '') === name);
      return !module || nothingToTest(module) || testsFor(module, tests).length > 0;
    });
    expect(stale).toEqual([]);
  });

  it('leaves out only modules without behaviour: types, interfaces and re-exports', () => {
    expect(
      nothingToTestIn(
        "import type { A } from './a.js';\nimport { type B } from './b.js';\nexport interface C { a: A; b: B }\nexport type D = C;",
      ),
    ).toBe(true);
    expect(nothingToTestIn("export { x } from './x.js';\nexport * from './y.js';\nexport type { Z } from './z.js';")).toBe(true);
    expect(nothingToTestIn("import { a } from './a.js';\nexport type A = typeof a;")).toBe(false);
    expect(nothingToTestIn("export type Role = 'api';\nexport const ROLES: Role[] = ['api'];")).toBe(false);
    expect(nothingToTestIn("import './register.js';")).toBe(false);
  });
});
