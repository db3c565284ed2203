import dns, { type LookupAddress } from 'node:dns';
import { Agent } from 'undici';
import { isPrivateAddress, privateLiteralHost } from '../../domain/privateAddresses.js';

/**
 * What an attempt records when its HTTP target's host is refused or does not resolve. One wording
 * for both on purpose: the attempt is the tenant's to read, and telling "resolves to a private
 * address" from "no such name" (or naming the address) would map which internal names exist.
 */
export const UNUSABLE_TARGET_MESSAGE = 'target address not allowed or not resolvable';

/**
 * An HTTP target the worker did not call because of its host's address (see UNUSABLE_TARGET_MESSAGE).
 * The detail is carried to the attempt for the operators' log line only.
 */
export abstract class UnusableTargetError extends Error {
  abstract readonly retryable: boolean;
  /** The operators' log line (message and detail); never the attempt's error, which the tenant reads. */
  abstract readonly logLine: { msg: string; fields: Record<string, string> };

  constructor() {
    super(UNUSABLE_TARGET_MESSAGE);
  }
}

/**
 * An HTTP target refused because it resolves to an address that is not global unicast. Not
 * retried: the same refusal would end every attempt (a changed DNS answer is picked up by the next execution).
 */
export class PrivateTargetError extends UnusableTargetError {
  readonly retryable = false;

  constructor(readonly refused: RefusedTarget) {
    super();
  }

  get logLine() {
    return { msg: 'refused an HTTP target address', fields: { ...this.refused } };
  }
}

/**
 * An HTTP target whose host name the DNS lookup did not resolve. Ended like a refusal (same message,
 * not retried), since attempts that differ in number would tell the two apart as surely as their
 * errors; only a temporary lookup failure (EAI_AGAIN: the resolver did not answer) is retried,
 * which says nothing about whether the name is internal.
 */
export class UnresolvableTargetError extends UnusableTargetError {
  readonly retryable: boolean;

  constructor(readonly unresolved: { host: string; code: string }) {
    super();
    this.retryable = unresolved.code === 'EAI_AGAIN';
  }

  get logLine() {
    return { msg: 'could not resolve an HTTP target host', fields: { ...this.unresolved } };
  }
}

/** A host name lookup that failed (Node's dns.lookup, which both connection pools use), as a neutral error; null for any other error. */
export function unresolvable(error: unknown, url: string): UnresolvableTargetError | null {
  // Read as fields, not by instanceof: the lookup's error may come from another realm (a test's VM context).
  const { syscall, code, hostname } = (error ?? {}) as { syscall?: unknown; code?: unknown; hostname?: unknown };
  if (syscall !== 'getaddrinfo') return null;
  return new UnresolvableTargetError({
    host: typeof hostname === 'string' ? hostname : new URL(url).hostname,
    code: typeof code === 'string' ? code : 'unknown',
  });
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
