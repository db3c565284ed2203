/** How many of one tenant's HTTP requests this process runs at once, and how many more may wait. */
export interface TenantRequestGateOptions {
  /** A tenant's requests running at once in this process (config API_TENANT_REQUESTS_IN_FLIGHT). Default 4. */
  inFlight: number;
  /** A tenant's requests waiting behind those; one more is refused (config API_TENANT_REQUESTS_QUEUED). Default 100. */
  queued: number;
}

/**
 * Each tenant's GraphQL requests over HTTP take turns in this process: at most `inFlight` run at once,
 * the next `queued` wait first come first served, and any beyond are refused. Without it a tenant
 * that sends a hundred requests at once fills the database pool, and every other tenant's request
 * queues behind all of them (bench:neighbours: 200 to 350 ms for tenant B's creates while tenant A
 * sent its burst); with it another tenant waits behind `inFlight` of them at most
 * (docs/architecture.md, "Fair share"). In memory: each process gives each tenant its own turns.
 */
export class TenantRequestGate {
  private readonly tenants = new Map<string, { running: number; waiting: (() => void)[] }>();

  constructor(private readonly options: TenantRequestGateOptions) {}

  /** Resolves with the turn's release (call it once the answer is out), or null when too many of the tenant's requests wait already. */
  async enter(tenantId: string): Promise<(() => void) | null> {
    let tenant = this.tenants.get(tenantId);
    if (!tenant) this.tenants.set(tenantId, (tenant = { running: 0, waiting: [] }));
    if (tenant.running < this.options.inFlight) tenant.running++;
    else if (tenant.waiting.length >= this.options.queued) return null;
    // Woken with the turn of a request that finished: `running` stays as it is.
    else await new Promise<void>((resolve) => tenant.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = tenant.waiting.shift();
      if (next) return next();
      if (--tenant.running === 0) this.tenants.delete(tenantId);
    };
  }

  /** The tenant's requests running and waiting in this process; for tests. */
  load(tenantId: string): { running: number; waiting: number } {
    const tenant = this.tenants.get(tenantId);
    return { running: tenant?.running ?? 0, waiting: tenant?.waiting.length ?? 0 };
  }
}
