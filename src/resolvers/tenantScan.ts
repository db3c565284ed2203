import type { TenantTurns } from './appServices.js';
import { RateLimitedError } from '../errors/index.js';

/**
 * Runs a read of a tenant's executions across all its jobs in one of its scan turns
 * (RequestServices.tenantScans): the request already holds a turn in the tenant's request gate, and
 * this keeps its tenant-wide reads to fewer at once still.
 */
export async function inTenantScan<T>(turns: TenantTurns, tenantId: string, read: () => Promise<T>): Promise<T> {
  const release = await turns.enter(tenantId);
  if (!release) throw tooManyScans();
  try {
    return await read();
  } finally {
    release();
  }
}

/** The refusal when even the scan turns' queue is full (it is nested in the request gate's, so hardly ever). */
function tooManyScans(): RateLimitedError {
  return new RateLimitedError('Too many reads of this tenant at once; retry after 1 s', 1);
}
