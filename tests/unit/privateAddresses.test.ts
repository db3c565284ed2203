import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isPrivateAddress } from '../../src/domain/privateAddresses.js';
import { callHttpTarget } from '../../src/workers/targets/httpTarget.js';
import {
  PrivateTargetError,
  UNUSABLE_TARGET_MESSAGE,
  UnresolvableTargetError,
  isNonRetryable,
  targetAgent,
  unresolvable,
} from '../../src/workers/targets/targetAgent.js';

/**
 * One address inside every block of IANA's IPv4 and IPv6 special-purpose address registries (and the
 * deprecated forms the registries dropped), first and last address where a block is small enough to
 * be mistaken at its edges. Every one is refused, the globally reachable anycast blocks included:
 * no tenant's webhook lives there.
 */
const IANA_SPECIAL_PURPOSE: [string, string[]][] = [
  ['0.0.0.0/8 this network', ['0.0.0.0', '0.255.255.255']],
  ['10.0.0.0/8 private', ['10.0.0.1', '10.255.255.255']],
  ['100.64.0.0/10 shared address space (CGNAT)', ['100.64.0.1', '100.127.255.255']],
  ['127.0.0.0/8 loopback', ['127.0.0.1', '127.255.255.254']],
  ['169.254.0.0/16 link local (cloud metadata)', ['169.254.169.254', '169.254.0.1']],
  ['172.16.0.0/12 private', ['172.16.0.1', '172.31.255.255']],
  [
    '192.0.0.0/24 IETF protocol assignments',
    ['192.0.0.1', '192.0.0.8', '192.0.0.9', '192.0.0.10', '192.0.0.170', '192.0.0.171', '192.0.0.255'],
  ],
  ['192.0.2.0/24 documentation TEST-NET-1', ['192.0.2.1', '192.0.2.255']],
  ['192.31.196.0/24 AS112-v4', ['192.31.196.1']],
  ['192.52.193.0/24 AMT', ['192.52.193.1']],
  ['192.88.99.0/24 deprecated 6to4 relay anycast', ['192.88.99.1']],
  ['192.168.0.0/16 private', ['192.168.1.1', '192.168.255.255']],
  ['192.175.48.0/24 direct delegation AS112', ['192.175.48.1']],
  ['198.18.0.0/15 benchmarking', ['198.18.0.1', '198.19.255.255']],
  ['198.51.100.0/24 documentation TEST-NET-2', ['198.51.100.7']],
  ['203.0.113.0/24 documentation TEST-NET-3', ['203.0.113.9']],
  ['224.0.0.0/4 multicast', ['224.0.0.1', '239.255.255.250']],
  ['240.0.0.0/4 reserved', ['240.0.0.1', '255.255.255.254']],
  ['255.255.255.255/32 limited broadcast', ['255.255.255.255']],
  ['::/128 unspecified', ['::']],
  ['::1/128 loopback', ['::1']],
  [
    '::ffff:0:0/96 IPv4-mapped, judged by the IPv4 address',
    ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe', '::ffff:192.0.2.1', '::ffff:10.0.0.1'],
  ],
  ['::/96 deprecated IPv4-compatible', ['::7f00:1', '::10.0.0.1', '::808:808']],
  ['::ffff:0:0:0/96 IPv4-translated (SIIT)', ['::ffff:0:7f00:1', '::ffff:0:808:808']],
  ['64:ff9b::/96 IPv4/IPv6 translation (NAT64)', ['64:ff9b::a00:1', '64:ff9b::808:808']],
  ['64:ff9b:1::/48 local-use IPv4/IPv6 translation', ['64:ff9b:1::1']],
  ['100::/64 discard-only', ['100::1']],
  ['100:0:0:1::/64 dummy IPv6 prefix', ['100:0:0:1::1']],
  ['2001::/23 IETF protocol assignments', ['2001:1::1', '2001:1::2', '2001:1::3', '2001:1ff::1']],
  ['2001::/32 Teredo', ['2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2']],
  ['2001:2::/48 benchmarking', ['2001:2::1']],
  ['2001:3::/32 AMT', ['2001:3::1']],
  ['2001:4:112::/48 AS112-v6', ['2001:4:112::1']],
  ['2001:10::/28 deprecated ORCHID', ['2001:10::1']],
  ['2001:20::/28 ORCHIDv2', ['2001:20::1']],
  ['2001:30::/28 drone remote ID', ['2001:30::1']],
  ['2001:db8::/32 documentation', ['2001:db8::1', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff']],
  ['2002::/16 6to4', ['2002:7f00:1::1', '2002::1']],
  ['2620:4f:8000::/48 direct delegation AS112', ['2620:4f:8000::1']],
  ['3fff::/20 documentation', ['3fff::1', '3fff:fff::1']],
  ['5f00::/16 segment routing SIDs', ['5f00::1']],
  ['fc00::/7 unique local', ['fc00::1', 'fd00:ec2::254']],
  ['fe80::/10 link-local', ['fe80::1', 'febf::1']],
  ['fec0::/10 deprecated site-local', ['fec0::1', 'feff::1']],
  ['ff00::/8 multicast', ['ff02::1', 'ff05::2']],
  ['outside 2000::/3, unassigned', ['4000::1', 'e000::1']],
];

describe('isPrivateAddress', () => {
  it.each(IANA_SPECIAL_PURPOSE)('refuses %s', (_block, addresses) => {
    for (const address of addresses) expect([address, isPrivateAddress(address)]).toEqual([address, true]);
  });

  it.each(['not-an-ip', '', 'example.com', '999.1.1.1', '10.0.0.1%eth0'])('refuses the non-address %p', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '192.169.0.1',
    '192.0.1.255',
    '192.0.3.0',
    '198.51.99.255',
    '203.0.114.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:82b::200e',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '2001:200::1',
  ])('allows the global unicast address %s', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
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

  it('refuses an IP-literal host and a name resolving to loopback, without sending anything or naming the address', async () => {
    const literal = await call(`http://127.0.0.1:${port}/`, false).then(
      () => null,
      (e: Error) => e,
    );
    expect(literal?.message).toBe(UNUSABLE_TARGET_MESSAGE);
    // The operators' log gets the detail, carried by the error to the attempt that logs it.
    expect((literal as PrivateTargetError).refused).toEqual({ host: '127.0.0.1', address: '127.0.0.1' });
    await expect(call(`http://[::ffff:127.0.0.1]:${port}/`, false)).rejects.toThrow(UNUSABLE_TARGET_MESSAGE);
    // A host name is checked on the address it resolves to, at connect time; the error says neither.
    const error = await call(`http://localhost:${port}/`, false).then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.message).toBe(UNUSABLE_TARGET_MESSAGE);
    expect(error?.message).not.toMatch(/127\.0\.0\.1|::1|localhost|resolves/);
    expect(requests).toBe(0);
    expect(error).toBeInstanceOf(PrivateTargetError);
    expect((error as PrivateTargetError).refused).toEqual({ host: 'localhost', address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) });
  });

  it('fails a name that does not resolve with the same message and retry decision as a refusal, whatever ALLOW_PRIVATE_TARGETS says', async () => {
    for (const allowPrivate of [false, true]) {
      const error = await call('http://no-such-host.invalid/', allowPrivate).then(
        () => null,
        (e: Error) => e,
      );
      // Not "getaddrinfo ENOTFOUND no-such-host.invalid": the code and the name are for the operators' log only.
      expect(error?.message).toBe(UNUSABLE_TARGET_MESSAGE);
      expect(error).toBeInstanceOf(UnresolvableTargetError);
      expect((error as UnresolvableTargetError).unresolved).toEqual({ host: 'no-such-host.invalid', code: 'ENOTFOUND' });
      expect((error as UnresolvableTargetError).logLine).toEqual({
        msg: 'could not resolve an HTTP target host',
        fields: { host: 'no-such-host.invalid', code: 'ENOTFOUND' },
      });
      expect(isNonRetryable(error)).toBe(true);
    }
    // A resolver that did not answer is retried (the job's retry policy), with the same message.
    const again = unresolvable(
      Object.assign(new Error('getaddrinfo EAI_AGAIN x.example'), { syscall: 'getaddrinfo', code: 'EAI_AGAIN' }),
      'http://x.example/',
    );
    expect(again?.message).toBe(UNUSABLE_TARGET_MESSAGE);
    expect(again?.unresolved).toEqual({ host: 'x.example', code: 'EAI_AGAIN' });
    expect(isNonRetryable(again)).toBe(false);
    // Other network errors are about a reachable host and keep their detail.
    expect(
      unresolvable(Object.assign(new Error('connect ECONNREFUSED'), { syscall: 'connect', code: 'ECONNREFUSED' }), 'http://x/'),
    ).toBeNull();
  });

  it('calls them when ALLOW_PRIVATE_TARGETS is set', async () => {
    const response = await call(`http://localhost:${port}/`, true);
    expect(response.status).toBe(200);
    expect(requests).toBe(1);
  });
});
