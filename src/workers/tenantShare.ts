import type { Workload } from '../domain/job.js';

/**
 * A tenant's share of this worker process: at most `limits[workload]` of the process's slots for
 * a workload run one tenant's attempts at once, so a tenant whose quota exceeds what one process
 * holds still leaves slots for the others (docs/architecture.md, "Fair share"). Counted in memory:
 * the slots it guards are this process's own. The tenant-wide quota is ConcurrencyLimiter's.
 */
export class TenantShare {
  private readonly running = new Map<string, number>();

  /** @param limits Attempts of one tenant at once in this process, per workload (at least 1). */
  constructor(private readonly limits: Record<Workload, number>) {}

  /** Takes a place for one attempt of the tenant; returns its release (call once), or null when the tenant has its share. */
  take(tenantId: string, workload: Workload): (() => void) | null {
    const key = `${workload}:${tenantId}`;
    const held = this.running.get(key) ?? 0;
    if (held >= this.limits[workload]) return null;
    this.running.set(key, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.running.get(key) ?? 1) - 1;
      if (left > 0) this.running.set(key, left);
      else this.running.delete(key);
    };
  }

  /** Attempts of the tenant running in this process; for tests and metrics. */
  held(tenantId: string, workload: Workload): number {
    return this.running.get(`${workload}:${tenantId}`) ?? 0;
  }
}

/** A tenant's share of `slots`: `percent` of them rounded down, at least one. */
export function shareOf(slots: number, percent: number): number {
  return Math.max(1, Math.floor((slots * percent) / 100));
}
