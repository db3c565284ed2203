import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isPrivateAddress } from '../../src/domain/privateAddresses.js';
import { callHttpTarget } from '../../src/workers/targets/httpTarget.js';
import { targetAgent } from '../../src/workers/targets/targetAgent.js';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1', '127.255.255.254', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254',
    '100.64.0.1', '100.127.255.255', '0.0.0.0', '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255',
    '198.18.0.1', '::1', '::', 'fe80::1', 'fc00::1', 'fd00:ec2::254', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1',
    '::ffff:a9fe:a9fe', '::10.0.0.1', '64:ff9b::a00:1', 'not-an-ip',
  ])('blocks %s', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '::ffff:808:808'])(
    'allows %s',
    (address) => {
      expect(isPrivateAddress(address)).toBe(false);
    },
  );
});

describe('HTTP targets on private addresses', () => {
  let server: Server;
  let port: number;
  let requests = 0;
  const guarded = targetAgent(false);
  const open = targetAgent(true);
  beforeAll(async () => {
    server = createServer((_req, res) => {
      requests++;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await Promise.all([guarded.close(), open.close()]);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const call = (url: string, allowPrivate: boolean) =>
    callHttpTarget({
      url,
      method: 'GET',
      headers: [],
      payloadJson: null,
      executionId: 'e',
      jobId: 'j',
      attempt: 1,
      scheduledFor: new Date(0),
      secret: 's',
      signal: new AbortController().signal,
      now: new Date(0),
      dispatcher: allowPrivate ? open : guarded,
      allowPrivate,
    });

  it('refuses an IP-literal host and a name resolving to loopback, without sending anything', async () => {
    await expect(call(`http://127.0.0.1:${port}/`, false)).rejects.toThrow(/refused to connect to 127\.0\.0\.1: .*ALLOW_PRIVATE_TARGETS is off/);
    await expect(call(`http://[::ffff:127.0.0.1]:${port}/`, false)).rejects.toThrow(/refused to connect/);
    // A host name is checked on the address it resolves to, at connect time.
    await expect(call(`http://localhost:${port}/`, false)).rejects.toThrow(/refused to connect to localhost: it resolves to (127\.0\.0\.1|::1)/);
    expect(requests).toBe(0);
  });

  it('calls them when ALLOW_PRIVATE_TARGETS is set', async () => {
    const response = await call(`http://localhost:${port}/`, true);
    expect(response.status).toBe(200);
    expect(requests).toBe(1);
  });
});
