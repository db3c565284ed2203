import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from '@jest/globals';
import { MONGO_URL, POSTGRES_SERVER, REDIS_URL } from '../support/env.js';

const run = promisify(execFile);

describe('npm run services with both servers already running', () => {
  // A copy of the project's service scripts and FerretDB module, with a `go` first on PATH that
  // records being called (building FerretDB here would call it), and a Redis Cluster script that
  // records being run.
  const root = mkdtempSync(join(tmpdir(), 'kairos-services-'));
  mkdirSync(join(root, 'scripts'));
  mkdirSync(join(root, 'tools/ferretdb'), { recursive: true });
  mkdirSync(join(root, 'bin'));
  for (const file of ['services.sh', 'service.mjs', 'ferretdb-build.sh', 'pg-socket.sh'])
    copyFileSync(join('scripts', file), join(root, 'scripts', file));
  writeFileSync(join(root, 'scripts/redis-cluster.sh'), `echo "redis cluster: stub"\necho called >> "${root}/cluster-called"\n`);
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
    // The Redis Cluster is for the tests only: `npm start` and a plain `npm run services` leave it alone.
    expect(existsSync(join(root, 'cluster-called'))).toBe(false);
  });

  it('runs the Redis Cluster script when the test scripts ask for it (KAIROS_REDIS_CLUSTER=1)', async () => {
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', MONGO_URL, REDIS_URL, KAIROS_REDIS_CLUSTER: '1' };
    const { stdout } = await run('bash', [join(root, 'scripts/services.sh')], { env, timeout: 60_000 });
    expect(stdout).toContain('redis cluster: stub');
    expect(existsSync(join(root, 'cluster-called'))).toBe(true);
  });
});

describe("pg_via_socket: FerretDB's URL for a PostgreSQL on this machine", () => {
  const viaSocket = async (url: string) =>
    (await run('bash', ['-c', 'source scripts/pg-socket.sh && pg_via_socket "$1"', '-', url], { timeout: 30_000 })).stdout.trim();

  it("names the local server's socket directory, after the URL's own parameters", async () => {
    const { stdout } = await run('psql', [`${POSTGRES_SERVER}/postgres`, '-tAc', 'show unix_socket_directories']);
    const dir = stdout.trim().split(',')[0].trim();
    expect(await viaSocket(`${POSTGRES_SERVER}/kairos_x?pool_max_conns=80`)).toBe(
      `${POSTGRES_SERVER}/kairos_x?pool_max_conns=80&host=${dir}`,
    );
    expect(await viaSocket(`${POSTGRES_SERVER}/kairos_x`)).toBe(`${POSTGRES_SERVER}/kairos_x?host=${dir}`);
  });

  it('leaves a remote server, or a loopback port without a socket, as configured', async () => {
    expect(await viaSocket('postgres://postgres@db.example:5432/kairos_x?pool_max_conns=80')).toBe(
      'postgres://postgres@db.example:5432/kairos_x?pool_max_conns=80',
    );
    expect(await viaSocket('postgres://postgres@127.0.0.1:1/kairos_x')).toBe('postgres://postgres@127.0.0.1:1/kairos_x');
  });
});
