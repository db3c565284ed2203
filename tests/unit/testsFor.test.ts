import { describe, expect, it } from '@jest/globals';

interface TestsForScript {
  moduleOf: (path: string) => string;
  importsOf: (file: string, source: string) => string[];
  names: (source: string, module: string) => boolean;
  namedAfter: (path: string, module: string) => boolean;
  testsFor: (target: string, files: Map<string, string>) => string[];
}

// The script is plain JavaScript (it runs without a build), so it is loaded untyped and typed here.
// The modules named below do not exist, so that tests:for does not list this file for real ones.
const script = '../../scripts/tests-for.mjs';
const { moduleOf, importsOf, names, namedAfter, testsFor } = (await import(script)) as TestsForScript;

describe('npm run tests:for (scripts/tests-for.mjs)', () => {
  it("reads a module's path as the imports name it: root-relative, .ts for .js", () => {
    expect(moduleOf('./src/workers/fakeWaker.js')).toBe('src/workers/fakeWaker.ts');
    expect(moduleOf('src/queue/../queue/fakeClaims.ts')).toBe('src/queue/fakeClaims.ts');
    expect(moduleOf('scripts/readme-block.mjs')).toBe('scripts/readme-block.mjs');
  });

  it('finds relative, #kairos, dynamic and side-effect imports, and ignores packages', () => {
    const source = [
      "import { describe } from '@jest/globals';",
      "import type { Run } from '../../src/workers/fakeRun.js';",
      'import {\n  a,\n  b,\n} from "../support/harness.js";',
      "const { checkRun } = await import('../../tools/chaos/fakeCheck.js');",
      "import '../support/env.js';",
      "export { x } from '#kairos/store/fakeMongo.js';",
    ].join('\n');
    expect(importsOf('tests/unit/x.test.ts', source)).toEqual([
      'src/workers/fakeRun.ts',
      'tests/support/harness.ts',
      'tools/chaos/fakeCheck.ts',
      'tests/support/env.ts',
      'src/store/fakeMongo.ts',
    ]);
  });

  const files = new Map([
    ['tests/unit/fakeBackoff.test.ts', "import { backoff } from '../../src/domain/fakeBackoff.js';"],
    ['tests/unit/other.test.ts', "import { other } from '../../src/domain/other.js';"],
    ['tests/support/fakes.ts', "import { backoff } from '../../src/domain/fakeBackoff.js';"],
    ['tests/support/harness.ts', "import { fake } from './fakes.js';"],
    ['tests/integration/retries.test.ts', "import { startTestKairos } from '../support/harness.js';"],
    ['tests/integration/fakeWaker.test.ts', "import { startTestKairos } from '../support/other.js';"],
    ['tests/integration/chained.test.ts', "import { cases } from '../unit/fakeBackoff.test.js';"],
  ]);

  it('lists the tests that import the module, directly or through helpers under tests/, sorted', () => {
    expect(testsFor('src/domain/fakeBackoff.ts', files)).toEqual(['tests/integration/retries.test.ts', 'tests/unit/fakeBackoff.test.ts']);
  });

  it('lists the test named after the module, whatever its case or dashes', () => {
    expect(testsFor('src/workers/fakeWaker.ts', files)).toEqual(['tests/integration/fakeWaker.test.ts']);
    expect(testsFor('src/workers/fake-waker.ts', files)).toEqual(['tests/integration/fakeWaker.test.ts']);
  });

  it('takes a test named after the module, or after its folder and the module, as its own', () => {
    expect(namedAfter('tests/unit/fakeWaker.test.ts', 'src/workers/fakeWaker.ts')).toBe(true);
    expect(namedAfter('tests/unit/workers.fakeWaker.test.ts', 'src/workers/fakeWaker.ts')).toBe(true);
    expect(namedAfter('tests/unit/transitions.fakeWaker.test.ts', 'src/workers/fakeWaker.ts')).toBe(false);
    expect(namedAfter('tests/unit/fakeWakerPool.test.ts', 'src/workers/fakeWaker.ts')).toBe(false);
  });

  it("lists a topic suite that names the module's path, from the root or from src/", () => {
    const suite = (header: string) => new Map([['tests/integration/overlap.test.ts', `/**\n * ${header}\n */`]]);
    expect(testsFor('src/workers/fakeGuard.ts', suite('Covers src/workers/fakeGuard.ts.'))).toEqual(['tests/integration/overlap.test.ts']);
    expect(testsFor('src/workers/fakeGuard.ts', suite('The guard (workers/fakeGuard.ts) holds.'))).toEqual([
      'tests/integration/overlap.test.ts',
    ]);
    expect(names('see other/workers/fakeGuard.ts', 'src/workers/fakeGuard.ts')).toBe(false);
    expect(names('see src/workers/fakeGuard.tsx', 'src/workers/fakeGuard.ts')).toBe(false);
  });

  it('lists nothing for a module no test reaches', () => {
    expect(testsFor('src/workers/fakeGuard.ts', files)).toEqual([]);
  });
});
