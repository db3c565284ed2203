// The Go and TypeScript SDKs are written apart, each with its own copy of the operations and of
// the close-code table: this fails when one side changes alone. Run by `bash scripts/sdk.sh check`
// (needs the TypeScript SDK's dev dependencies, for graphql).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';

const here = new URL('./', import.meta.url);
const { parse, print } = createRequire(new URL('typescript/package.json', here))('graphql');
const read = (path) => readFileSync(new URL(path, here), 'utf8');

/** Every operation and fragment of a folder of .graphql files, by name, printed without comments. */
function definitions(folder, rename = (name) => name) {
  const byName = new Map();
  for (const file of readdirSync(new URL(folder, here))
    .filter((f) => f.endsWith('.graphql'))
    .sort()) {
    for (const definition of parse(read(`${folder}/${file}`)).definitions) {
      const name = rename(definition.name.value);
      assert.ok(!byName.has(name), `${folder}/${file}: ${name} is defined twice`);
      byName.set(name, print({ ...definition, name: { ...definition.name, value: name } }));
    }
  }
  return byName;
}

test('the Go and TypeScript SDKs send the same operations, with the same variables and selections', () => {
  const typescript = definitions('typescript/operations');
  // The Go operations are named Get* where the plain name is a type of the Go package (Job, Execution...);
  // genqlient's directives are comments, which printing drops.
  const go = definitions('go/operations', (name) => (name.startsWith('Get') && typescript.has(name.slice(3)) ? name.slice(3) : name));
  assert.ok(typescript.size > 10, 'no operations found in sdk/typescript/operations');
  assert.deepEqual([...go.keys()].sort(), [...typescript.keys()].sort(), 'the two SDKs define different operations or fragments');
  for (const [name, text] of typescript)
    assert.equal(go.get(name), text, `${name} differs between sdk/go/operations and sdk/typescript/operations`);
});

/** `[closeCode, error code]` pairs, sorted, from `text` by `pattern` (close code, error code captures). */
function pairs(text, pattern, code = (c) => c) {
  return [...text.matchAll(pattern)].map(([, closeCode, error]) => [Number(closeCode), code(error)]).sort(([a], [b]) => a - b);
}

test('the Go and TypeScript SDKs and their READMEs map WebSocket close codes to the same error codes', () => {
  const typescript = pairs(read('typescript/src/closeCodes.ts'), /^\s*(\d{4}): '([A-Z_]+)',/gm);
  const constants = new Map(
    [...read('go/errors.go').matchAll(/^\s*(Code\w+)\s*=\s*"([A-Z_]+)"/gm)].map(([, name, value]) => [name, value]),
  );
  const go = pairs(read('go/closecodes.go'), /^\s*(\d{4}):\s*(Code\w+),/gm, (name) => constants.get(name) ?? `unknown constant ${name}`);
  assert.ok(typescript.length > 3, 'no close codes found in sdk/typescript/src/closeCodes.ts');
  assert.deepEqual(go, typescript, 'sdk/go/closecodes.go and sdk/typescript/src/closeCodes.ts differ');
  // The READMEs' tables: | 4401 | when | `UNAUTHENTICATED` |
  for (const readme of ['typescript/README.md', 'go/README.md']) {
    assert.deepEqual(
      pairs(read(readme), /^\|\s*(\d{4})\s*\|[^\n]*\|\s*`([A-Z_]+)`\s*\|\s*$/gm),
      typescript,
      `the close-code table of sdk/${readme} differs from the SDKs'`,
    );
  }
});
