import { RateLimitedError } from '../errors/index.js';

/** How many of one tenant's GraphQL operations this process runs at once, and how many more may wait. */
export interface TenantRequestGateOptions {
  /** A tenant's operations running at once in this process (config API_TENANT_REQUESTS_IN_FLIGHT). Default 4. */
  inFlight: number;
  /** A tenant's operations waiting behind those; one more is refused (config API_TENANT_REQUESTS_QUEUED). Default 100. */
  queued: number;
}

/** The refusal of an operation past the tenant's turns and queue, the same over HTTP (429, Retry-After: 1) and WebSocket. */
export function tooManyAtOnce(): RateLimitedError {
  return new RateLimitedError('Too many requests of this tenant at once; retry after 1 s', 1);
}

/**
 * Each tenant's GraphQL operations take turns in this process, whatever their transport (HTTP
 * requests and graphql-ws operations share one gate): at most `inFlight` run at once, the next
 * `queued` wait first come first served, and any beyond are refused. Without it a tenant that sends
 * a hundred requests at once fills the database pool, and every other tenant's request queues behind
 * all of them (bench:neighbours: 200 to 350 ms for tenant B's creates while tenant A sent its burst;
 * 155 s with 200 queries in flight over sockets); with it another tenant waits behind `inFlight` of
 * them at most (docs/architecture.md, "Fair share"). In memory: each process gives each tenant its own turns.
 */
export class TenantRequestGate {
  private readonly tenants = new Map<string, { running: number; waiting: (() => void)[] }>();

  constructor(private readonly options: TenantRequestGateOptions) {}

  /**
   * Resolves with the turn's release (call it once the answer is out), or null when too many of the
   * tenant's operations wait already, or when `signal` aborts first (its caller is gone: the place
   * it held in the queue is free at once, for the tenant's next operation).
   */
  async enter(tenantId: string, signal?: AbortSignal): Promise<(() => void) | null> {
    if (signal?.aborted) return null;
    let tenant = this.tenants.get(tenantId);
    if (!tenant) this.tenants.set(tenantId, (tenant = { running: 0, waiting: [] }));
    if (tenant.running < this.options.inFlight) tenant.running++;
    else if (tenant.waiting.length >= this.options.queued) return null;
    // Woken with the turn of a request that finished: `running` stays as it is.
    else if (!(await this.wait(tenant.waiting, signal))) return null;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = tenant.waiting.shift();
      if (next) return next();
      if (--tenant.running === 0) this.tenants.delete(tenantId);
    };
  }

  /** Waits in `waiting` for a turn: true once handed one, false when `signal` aborted first (and the place is left). */
  private wait(waiting: (() => void)[], signal: AbortSignal | undefined): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const leave = () => {
        waiting.splice(waiting.indexOf(wake), 1);
        resolve(false);
      };
      const wake = () => {
        signal?.removeEventListener('abort', leave);
        resolve(true);
      };
      waiting.push(wake);
      signal?.addEventListener('abort', leave, { once: true });
    });
  }

  /** The tenant's operations running and waiting in this process; for tests. */
  load(tenantId: string): { running: number; waiting: number } {
    const tenant = this.tenants.get(tenantId);
    return { running: tenant?.running ?? 0, waiting: tenant?.waiting.length ?? 0 };
  }
}
