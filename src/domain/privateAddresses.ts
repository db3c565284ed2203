import { BlockList, isIP } from 'node:net';

/**
 * Address ranges an HTTP target may not reach unless ALLOW_PRIVATE_TARGETS is set: loopback,
 * private, link-local (cloud metadata at 169.254.169.254 and fd00:ec2::254 included), CGNAT,
 * multicast, and reserved or unspecified ranges, IPv4 and IPv6.
 */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

/** True when `address` (an IP literal) lies in a range HTTP targets may not reach. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family !== 6) return true;
  // IPv4-mapped and IPv4-compatible forms (::ffff:10.0.0.1, ::10.0.0.1) are judged by their IPv4 address.
  const mapped = /^::(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1], 'ipv4');
  const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hexMapped) {
    const high = parseInt(hexMapped[1], 16);
    const low = parseInt(hexMapped[2], 16);
    return BLOCKED.check(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, 'ipv4');
  }
  return BLOCKED.check(address, 'ipv6');
}

/**
 * The host of `url` when it is an IP literal in a blocked range, else null. Such a URL can be
 * refused when a job is defined; a host name cannot (what it resolves to may change), so it is
 * checked at connect time instead.
 */
export function privateLiteralHost(url: string): string | null {
  let hostname: string;
  try {
    hostname = new URL(url).hostname;
  } catch {
    return null;
  }
  const host = hostname.replace(/^\[|\]$/g, '');
  return isIP(host) && isPrivateAddress(host) ? host : null;
}
