import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signature, signatureV2, type SignedRequest } from '../../src/workers/targets/webhookSignature.js';
import { waitUntil } from '../support/waitFor.js';

/** The webhook receiver of docs/security.md, taken from the page itself so the two cannot drift. */
function readmeReceiver(): string {
  const readme = readFileSync('docs/security.md', 'utf8');
  const match = /<!-- webhook-receiver:[^>]*-->\s*```js\n([\s\S]*?)```/.exec(readme);
  if (!match) throw new Error('docs/security.md has no marked webhook receiver block');
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

describe('the webhook receiver of docs/security.md', () => {
  const secret = 'readme-receiver-test-secret';
  /** The secret a rotation replaced: the receiver is given both, `<new>,<old>`, as during the grace. */
  const oldSecret = 'readme-receiver-old-secret';
  const dir = mkdtempSync(join(tmpdir(), 'kairos-readme-'));
  let child: ChildProcess;
  let url = '';

  beforeAll(async () => {
    writeFileSync(join(dir, 'receiver.mjs'), readmeReceiver());
    const port = await freePort();
    url = `http://127.0.0.1:${port}/hook`;
    child = spawn(process.execPath, [join(dir, 'receiver.mjs')], {
      env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: `${secret},${oldSecret}`, WEBHOOK_URL: url, PORT: String(port) },
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

  const executionId = 'RXhlY3V0aW9uOjY1ZjBhMWIyYzNkNGU1ZjYwMTIzNDU2Nw';
  /** Sends `body` to the receiver with `method`, Kairos's execution id headers and `headers`. */
  const send = (method: string, body: string, headers: Record<string, string>) =>
    fetch(url, {
      method,
      body: method === 'GET' ? undefined : body,
      headers: { 'content-type': 'application/json', 'x-kairos-execution-id': executionId, 'idempotency-key': executionId, ...headers },
    }).then((r) => r.status);
  /** An X-Kairos-Signature-V2 header as Kairos makes it, of a POST to the receiver's URL unless `request` says otherwise. */
  const v2 = (request: Partial<SignedRequest>, now = new Date(), key: string | string[] = secret) => ({
    'x-kairos-signature-v2': signatureV2(key, { executionId, method: 'POST', url, body: '', ...request }, now),
  });

  it('accepts a request signed the way Kairos signs it (v2), with a body or, for GET, without', async () => {
    const body = JSON.stringify({ hello: 'wörld' });
    expect(await send('POST', body, v2({ body }))).toBe(204);
    expect(await send('GET', '', v2({ method: 'GET' }))).toBe(204);
  });

  it('refuses a missing header, an altered body, another secret and a stale timestamp', async () => {
    const body = '{"a":1}';
    expect(await send('POST', body, {})).toBe(401);
    expect(await send('POST', '{"a":2}', v2({ body }))).toBe(401);
    expect(await send('POST', body, v2({ body }, new Date(), 'another-secret'))).toBe(401);
    expect(await send('POST', body, v2({ body }, new Date(Date.now() - 600_000)))).toBe(401);
  });

  it('refuses a replay under another execution id, with another method or signed for another URL', async () => {
    const body = '{"a":1}';
    const signed = v2({ body });
    expect(await send('POST', body, { ...signed, 'x-kairos-execution-id': 'RXhlY3V0aW9uOjY1ZjBhMWIyYzNkNGU1ZjYwMTIzNDU2OA' })).toBe(401);
    expect(await send('PUT', body, signed)).toBe(401);
    expect(await send('POST', body, v2({ body, url: url.replace('/hook', '/other') }))).toBe(401);
    // The deprecated v1 header alone is not enough for a receiver that verifies v2.
    expect(await send('POST', body, { 'x-kairos-signature': signature(secret, body, new Date()) })).toBe(401);
  });

  it("during a rotation's grace accepts the header with both signatures, and either secret's alone; refuses neither", async () => {
    const body = '{"a":1}';
    expect(await send('POST', body, v2({ body }, new Date(), [secret, oldSecret]))).toBe(204);
    expect(await send('POST', body, v2({ body }, new Date(), [oldSecret]))).toBe(204);
    expect(await send('POST', body, v2({ body }, new Date(), ['third-secret', 'fourth-secret']))).toBe(401);
    // Both signatures of another body, or a stale header with both, are refused like one.
    expect(await send('POST', '{"a":2}', v2({ body }, new Date(), [secret, oldSecret]))).toBe(401);
    expect(await send('POST', body, v2({ body }, new Date(Date.now() - 600_000), [secret, oldSecret]))).toBe(401);
  });
});
