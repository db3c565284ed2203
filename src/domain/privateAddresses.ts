import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';

/** IANA's global unicast allocation for IPv6 (2000::/3): everything outside it is special or unassigned. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * True unless `address` (an IP literal) is a global unicast address, the only kind an HTTP target
 * may reach without ALLOW_PRIVATE_TARGETS. The classification is ipaddr.js's (every IANA
 * special-purpose block: loopback, private, link-local with cloud metadata, CGNAT, documentation,
 * benchmarking, 6to4 relay, AS112, AMT, NAT64, Teredo, ORCHID, multicast, reserved...), not a
 * list kept here; an IPv6 address must also lie in 2000::/3, which refuses the deprecated
 * IPv4-compatible (::a.b.c.d) and site-local (fec0::/10) forms and unassigned space. An
 * IPv4-mapped address (::ffff:a.b.c.d) is judged by its IPv4 address. Anything unparsable is refused.
 */
export function isPrivateAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (parsed.range() !== 'unicast') return true;
  return parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6);
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
