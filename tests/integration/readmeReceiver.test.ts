import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signature } from '../../src/workers/targets/httpTarget.js';
import { waitUntil } from '../support/waitFor.js';

/** The README's webhook receiver, taken from the README itself so the two cannot drift. */
function readmeReceiver(): string {
  const readme = readFileSync('README.md', 'utf8');
  const match = /<!-- webhook-receiver:[^>]*-->\s*```js\n([\s\S]*?)```/.exec(readme);
  if (!match) throw new Error('README.md has no marked webhook receiver block');
  return match[1];
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

describe("the README's webhook receiver", () => {
  const secret = 'readme-receiver-test-secret';
  const dir = mkdtempSync(join(tmpdir(), 'kairos-readme-'));
  let child: ChildProcess;
  let url = '';

  beforeAll(async () => {
    writeFileSync(join(dir, 'receiver.mjs'), readmeReceiver());
    const port = await freePort();
    url = `http://127.0.0.1:${port}/hook`;
    child = spawn(process.execPath, [join(dir, 'receiver.mjs')], {
      env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: secret, PORT: String(port) },
      stdio: 'ignore',
    });
    await waitUntil(
      'the receiver to listen',
      async () => ((await fetch(url, { method: 'POST' })).status === 401 ? true : undefined),
      10_000,
    );
  });
  afterAll(async () => {
    if (child.exitCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (body: string, headers: Record<string, string>) =>
    fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } }).then((r) => r.status);

  it('accepts a body signed the way Kairos signs it', async () => {
    const body = JSON.stringify({ hello: 'wörld' });
    expect(await post(body, { 'x-kairos-signature': signature(secret, body, new Date()) })).toBe(204);
  });

  it('refuses a missing header, an altered body, another secret and a stale timestamp', async () => {
    const body = '{"a":1}';
    expect(await post(body, {})).toBe(401);
    expect(await post('{"a":2}', { 'x-kairos-signature': signature(secret, body, new Date()) })).toBe(401);
    expect(await post(body, { 'x-kairos-signature': signature('another-secret', body, new Date()) })).toBe(401);
    expect(await post(body, { 'x-kairos-signature': signature(secret, body, new Date(Date.now() - 600_000)) })).toBe(401);
  });
});
