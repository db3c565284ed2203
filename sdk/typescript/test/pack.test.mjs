// The package as a user gets it: `npm pack`, install the tarball into a fresh project, type-check a
// usage file and every ```ts block of this package's README against its declarations, import it,
// and run the root README's "Use it from code" example against the running Kairos (KAIROS_URL,
// KAIROS_TOKEN) until it prints a SUCCEEDED status change.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const sdk = join(dirname(fileURLToPath(import.meta.url)), '..');
const npm = (args, cwd) => execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, stdio: ['ignore', 'pipe', 'inherit'] }).toString();

/** The first ```js block of the root README's "Use it from code" section. */
function readmeExample() {
  const readme = readFileSync(join(sdk, '..', '..', 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Use it from code'));
  const match = /```js\n([\s\S]*?)```/.exec(section);
  assert.ok(match, 'README has a js example under "Use it from code"');
  return match[1];
}

/** Every ```ts block of this package's README, in order. */
function sdkReadmeBlocks() {
  const readme = readFileSync(join(sdk, 'README.md'), 'utf8');
  return [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
}

const tsc = (dir, project) => execFileSync(process.execPath, [join(sdk, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project], { cwd: dir, stdio: 'inherit' });
const compilerOptions = { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: ['node'] };

/** A fresh project with the packed tarball installed, shared by the tests below. */
let dir;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kairos-sdk-pack-'));
  const tarball = npm(['pack', '--pack-destination', dir, '--silent'], sdk).trim().split('\n').pop();
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'sdk-user', private: true, type: 'module' }));
  npm(['install', join(dir, tarball), '@types/node@20.19.43'], dir);
});
after(() => rmSync(dir, { recursive: true, force: true }));

test("every ts example of the SDK's README type-checks against the packed package", () => {
  const blocks = sdkReadmeBlocks();
  assert.ok(blocks.length >= 5, `README has its ts examples (found ${blocks.length})`);
  const readme = join(dir, 'readme');
  mkdirSync(readme);
  // The fragments' free names, typed as a user's code would have them (`client` a KairosClient).
  writeFileSync(
    join(readme, 'given.d.ts'),
    `import type { KairosClient } from '@kairos/client';\n` +
      `declare global {\n  const client: KairosClient;\n  const url: string;\n  const token: string;\n  const jwt: string;\n` +
      `  const jobId: string;\n  const secret: string;\n  function refreshJwt(): Promise<string>;\n}\n`,
  );
  // Each block is a module of its own, so two blocks may both declare `client`.
  const files = blocks.map((block, i) => {
    writeFileSync(join(readme, `example${i + 1}.ts`), `export {};\n${block}`);
    return `example${i + 1}.ts`;
  });
  writeFileSync(join(readme, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['given.d.ts', ...files] }));
  tsc(dir, readme);
});

test('npm pack installs into a fresh project, type-checks, imports, and runs the README example', async () => {
  const example = readmeExample();
  writeFileSync(join(dir, 'watch.mjs'), example);
  // The same lines as TypeScript, plus uses of the other exported types.
  writeFileSync(
    join(dir, 'usage.ts'),
    `${example}\n` +
      `import { KairosError, verifyWebhook, verifyWebhookV2, type Execution, type ExecutionStatus } from '@kairos/client';\n` +
      `const statuses: ExecutionStatus[] = ['SUCCEEDED'];\n` +
      `const first: Execution | null = await client.execution(job.id);\n` +
      `const ok: boolean = await verifyWebhook('{}', 't=1,v1=00', 'secret');\n` +
      `const okV2: boolean = await verifyWebhookV2({ secret: 's', signatureHeader: 't=1,v2=00', executionId: 'e', method: 'POST', url: 'https://h/', body: '{}' });\n` +
      `try { await client.pauseJob('x'); } catch (e) { if (e instanceof KairosError && e.code === 'RATE_LIMITED') console.log(e.retryAfterSeconds, statuses, first, ok, okV2); }\n` +
      `// @ts-expect-error: a schedule needs cron, intervalSeconds or runAt typed right\n` +
      `await client.createJob({ name: 1, schedule: {}, target: {} });\n`,
  );
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['usage.ts'] }));
  tsc(dir, dir);

  const imported = execFileSync(process.execPath, ['--input-type=module', '-e', "const m = await import('@kairos/client'); console.log(Object.keys(m).sort().join(','))"], { cwd: dir }).toString();
  assert.match(imported, /KairosClient/);
  assert.match(imported, /verifyWebhook,verifyWebhookV2/);

  const output = await runUntil(dir, 'watch.mjs', /-> SUCCEEDED/, 30_000);
  assert.match(output, /created \S+ next run/);
});

/** Runs `node file` in `cwd` until its output matches `pattern`, then stops it; rejects after `timeoutMs`. */
function runUntil(cwd, file, pattern, timeoutMs) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { cwd, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`no ${pattern} within ${timeoutMs} ms; output: ${output}`));
    }, timeoutMs);
    const onData = (chunk) => {
      output += chunk;
      if (pattern.test(output)) {
        clearTimeout(timer);
        child.kill();
        resolve(output);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!pattern.test(output)) reject(new Error(`exited with ${code} first; output: ${output}`));
    });
  });
}
