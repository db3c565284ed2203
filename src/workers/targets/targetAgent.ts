import dns, { type LookupAddress } from 'node:dns';
import { Agent } from 'undici';
import { isPrivateAddress, privateLiteralHost } from '../../domain/privateAddresses.js';

/**
 * An HTTP target refused because it resolves to an address that is not global unicast. The
 * message is neutral on purpose: it is recorded on the tenant's attempt, and naming the address
 * a host resolves to would tell a tenant which internal names exist. Not retried: the same
 * refusal would end every attempt (a changed DNS answer is picked up by the next execution).
 */
export class PrivateTargetError extends Error {
  readonly retryable = false;
  /** What was refused, for the operators' log line (never the attempt's error, which the tenant reads). */
  constructor(readonly refused: RefusedTarget) {
    super('target address not allowed');
  }
}

/** True for an error that a further attempt would only repeat. */
export function isNonRetryable(error: unknown): boolean {
  return (error as { retryable?: unknown } | null)?.retryable === false;
}

/** What an operator is told about a refused target (never the tenant). */
export interface RefusedTarget {
  host: string;
  address: string;
}

/** Refuses a URL whose host is an IP literal in a blocked range (literals never reach the DNS lookup below). */
export function checkLiteralHost(url: string, allowPrivate: boolean): void {
  if (allowPrivate) return;
  const host = privateLiteralHost(url);
  if (host) throw new PrivateTargetError({ host, address: host });
}

/**
 * The connection pool HTTP targets are called through. Unless `allowPrivate`, every address a
 * host name resolves to is checked at connect time, on the address actually used, so a DNS
 * answer that changes after the job was created (rebinding) cannot reach a private address.
 * The pool is shared by every attempt, so the refusal carries its detail to the attempt, whose
 * log line names the tenant, job and execution. Owned by the worker role, which closes it.
 */
export function targetAgent(allowPrivate: boolean): Agent {
  if (allowPrivate) return new Agent();
  return new Agent({
    connect: {
      lookup: (hostname, options, callback) => {
        dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
          if (error) return callback(error, '', 0);
          const list = addresses;
          const blocked = list.find((a) => isPrivateAddress(a.address));
          if (blocked) return callback(new PrivateTargetError({ host: hostname, address: blocked.address }), '', 0);
          if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
          callback(null, list[0].address, list[0].family);
        });
      },
    },
  });
}
