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
  constructor() {
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

/** Called with the detail of each refusal, for the operators' log. */
export type OnRefusedTarget = (refused: RefusedTarget) => void;

/** Refuses a URL whose host is an IP literal in a blocked range (literals never reach the DNS lookup below). */
export function checkLiteralHost(url: string, allowPrivate: boolean, onRefused?: OnRefusedTarget): void {
  if (allowPrivate) return;
  const host = privateLiteralHost(url);
  if (host) {
    onRefused?.({ host, address: host });
    throw new PrivateTargetError();
  }
}

/**
 * The connection pool HTTP targets are called through. Unless `allowPrivate`, every address a
 * host name resolves to is checked at connect time, on the address actually used, so a DNS
 * answer that changes after the job was created (rebinding) cannot reach a private address.
 * Owned by the worker role, which closes it.
 */
export function targetAgent(allowPrivate: boolean, onRefused?: OnRefusedTarget): Agent {
  if (allowPrivate) return new Agent();
  return new Agent({
    connect: {
      lookup: (hostname, options, callback) => {
        dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
          if (error) return callback(error, '', 0);
          const list = addresses;
          const blocked = list.find((a) => isPrivateAddress(a.address));
          if (blocked) {
            onRefused?.({ host: hostname, address: blocked.address });
            return callback(new PrivateTargetError(), '', 0);
          }
          if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
          callback(null, list[0].address, list[0].family);
        });
      },
    },
  });
}
