import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { dropTestState, uniqueName } from '../support/harness.js';
import { mongoUrlFor } from '../support/processes.js';
import { MONGO_URL, REDIS_URL, TEST_JWT_SECRET } from '../support/env.js';
import { waitUntil } from '../support/waitFor.js';

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

/** Resolves with the HTTP status, or the connection error's code. */
const probe = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(2000) }).then(
    (r) => r.status,
    (e: Error) => String((e.cause as { code?: string } | undefined)?.code ?? e.message),
  );

/**
 * `npm start`'s script, run as it is against the running services: a copy of scripts/ with the
 * install step and the Redis Cluster script replaced by stubs that record being called, and the
 * project's dist/ and node_modules linked in (built by `npm run build`).
 */
describe('npm start (scripts/start.sh)', () => {
  const name = uniqueName('start');
  const root = mkdtempSync(join(tmpdir(), 'kairos-start-'));
  mkdirSync(join(root, 'scripts'));
  for (const file of ['start.sh', 'services.sh', 'service.mjs', 'dev-env.sh'])
    copyFileSync(join('scripts', file), join(root, 'scripts', file));
  writeFileSync(join(root, 'scripts/install.sh'), `echo install >> "${root}/calls"\n`);
  writeFileSync(join(root, 'scripts/redis-cluster.sh'), `echo redis-cluster >> "${root}/calls"\n`);
  symlinkSync(resolve('node_modules'), join(root, 'node_modules'));
  symlinkSync(resolve('dist'), join(root, 'dist'));
  let child: ChildProcess | null = null;

  afterAll(async () => {
    // The script's process group (the script and its node) if a failed test left it running.
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
    }
    rmSync(root, { recursive: true, force: true });
    await dropTestState(name, name);
  });

  it('starts no Redis Cluster, prints the URL and token once the server answers on 127.0.0.1 only, and passes Ctrl-C on', async () => {
    const port = await freePort();
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      MONGO_URL: mongoUrlFor(MONGO_URL, name),
      REDIS_URL,
      REDIS_PREFIX: name,
      JWT_SECRET: TEST_JWT_SECRET,
      PORT: String(port),
      // Its /metrics on a free port too: another Kairos on this machine (a developer's `npm start`) holds the default.
      METRICS_PORT: '0',
      LOG_LEVEL: 'warn',
    };
    const started = spawn('bash', [join(root, 'scripts/start.sh')], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child = started;
    let stdout = '';
    let stderr = '';
    // Asked the moment the URL is printed: the server must already answer.
    let answerWhenPrinted = null as Promise<number | string> | null;
    started.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!answerWhenPrinted && stdout.includes('Kairos GraphQL:')) answerWhenPrinted = probe(`http://127.0.0.1:${port}/healthz`);
    });
    started.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = once(started, 'exit');

    await waitUntil('the development token to be printed', async () => (/^More: /m.test(stdout) ? true : undefined), 60_000).catch(
      (error: Error) => {
        throw new Error(`${error.message}\nstdout: ${stdout}\nstderr: ${stderr}`);
      },
    );
    expect(stdout).toContain(`Kairos GraphQL: http://127.0.0.1:${port}/graphql`);
    expect(stdout).toMatch(/^ {2}[\w-]+\.[\w-]+\.[\w-]+$/m);
    expect(await answerWhenPrinted).toBe(200);
    // Bound to 127.0.0.1, not every interface: another loopback address (which 0.0.0.0 would accept) is refused.
    expect(await probe(`http://127.0.0.1:${port}/healthz`)).toBe(200);
    expect(await probe(`http://127.0.0.2:${port}/healthz`)).toBe('ECONNREFUSED');
    // Only the tests use the Redis Cluster.
    expect(readFileSync(join(root, 'calls'), 'utf8').split('\n').filter(Boolean)).toEqual(['install']);

    // Ctrl-C reaches the script: it passes it on to node, which stops cleanly, and exits with node's code.
    started.kill('SIGINT');
    const [code] = await exited;
    expect(code).toBe(0);
    expect(await probe(`http://127.0.0.1:${port}/healthz`)).toBe('ECONNREFUSED');
  }, 90_000);
});
