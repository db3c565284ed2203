import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from '@jest/globals';
import { MONGO_URL, REDIS_URL } from '../support/env.js';

const run = promisify(execFile);

describe('npm run services with both servers already running', () => {
  // A copy of the project's service scripts and FerretDB module, with a `go` first on PATH that
  // records being called: building FerretDB here would call it.
  const root = mkdtempSync(join(tmpdir(), 'kairos-services-'));
  mkdirSync(join(root, 'scripts'));
  mkdirSync(join(root, 'tools/ferretdb'), { recursive: true });
  mkdirSync(join(root, 'bin'));
  for (const file of ['services.sh', 'service.mjs', 'ferretdb-build.sh', 'redis-cluster.sh'])
    copyFileSync(join('scripts', file), join(root, 'scripts', file));
  for (const file of ['go.mod', 'go.sum', 'main.go']) copyFileSync(join('tools/ferretdb', file), join(root, 'tools/ferretdb', file));
  writeFileSync(join(root, 'bin/go'), `#!/bin/sh\necho called > "${root}/go-called"\nexit 1\n`, { mode: 0o755 });
  symlinkSync(resolve('node_modules'), join(root, 'node_modules'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('uses them, builds no FerretDB, and leaves a Redis it did not start alone unless asked', async () => {
    const env = { PATH: `${join(root, 'bin')}:${process.env.PATH ?? ''}`, HOME: process.env.HOME ?? '', MONGO_URL, REDIS_URL };
    const { stdout } = await run('bash', [join(root, 'scripts/services.sh')], { env, timeout: 60_000 });
    expect(stdout).toContain('redis: using the running server');
    expect(stdout).toContain('mongo: using the running server');
    expect(stdout).not.toContain('hz');
    expect(existsSync(join(root, 'go-called'))).toBe(false);
    expect(existsSync(join(root, '.cache'))).toBe(false);
  });
});
