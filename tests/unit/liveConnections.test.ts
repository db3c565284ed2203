import { describe, expect, it } from '@jest/globals';
import { LiveConnections } from '../../src/api/liveConnections.js';
import { QuotaExceededError } from '../../src/errors/index.js';

const QUOTA = { maxSocketsPerCredential: 2, maxSockets: 3, maxSubscriptionsPerSocket: 2, maxSubscriptions: 3 };
/** A stand-in for graphql-ws's connection context: only its running operations are read. */
const connection = (...ids: string[]) => ({ subscriptions: Object.fromEntries(ids.map((id) => [id, null])) as Record<string, unknown> });

describe('LiveConnections', () => {
  it('counts sockets per credential and per tenant, and frees a slot once, however often released', () => {
    const live = new LiveConnections();
    const [a1, a2, a3, b1, b2] = [connection(), connection(), connection(), connection(), connection()];
    expect(live.admit(a1, 't', 'alice', QUOTA)).toBeNull();
    expect(live.admit(a2, 't', 'alice', QUOTA)).toBeNull();
    expect(live.admit(a3, 't', 'alice', QUOTA)).toMatch(/credential may hold at most 2/);
    expect(live.admit(b1, 't', 'bob', QUOTA)).toBeNull();
    expect(live.admit(b2, 't', 'bob', QUOTA)).toMatch(/tenant may hold at most 3/);
    // The same subject in another tenant is another credential.
    expect(live.admit(connection(), 'u', 'alice', QUOTA)).toBeNull();
    live.release(a1);
    live.release(a1);
    expect(live.admit(a3, 't', 'alice', QUOTA)).toBeNull();
    expect(live.admit(b2, 't', 'bob', QUOTA)).toMatch(/tenant may hold at most 3/);
  });

  it('refuses the operation past the per-socket cap, then past the tenant total, with their extensions', () => {
    const live = new LiveConnections();
    const one = connection('a', 'b', 'c');
    const two = connection('d');
    live.admit(one, 't', 'carol', QUOTA);
    live.admit(two, 't', 'dave', QUOTA);
    const perSocket = live.operationRefusal(one);
    expect(perSocket).toBeInstanceOf(QuotaExceededError);
    expect(perSocket?.details).toEqual({ maxSubscriptionsPerSocket: 2 });
    delete one.subscriptions.c;
    // a, b and d: exactly the tenant's 3.
    expect(live.operationRefusal(two)).toBeNull();
    two.subscriptions.e = null;
    expect(live.operationRefusal(two)?.details).toEqual({ maxSubscriptions: 3 });
    // A released socket's operations no longer count for the tenant.
    live.release(one);
    expect(live.operationRefusal(two)).toBeNull();
    expect(live.operationRefusal(one)).toBeNull();
  });
});
