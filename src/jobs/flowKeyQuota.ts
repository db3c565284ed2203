import { FLOW_LIMITS } from '../domain/flowControl.js';
import { QuotaExceededError } from '../errors/index.js';
import type { JobStore } from '../store/jobStore.js';

/**
 * Refuses a flow-control key new to the tenant when its jobs already use FLOW_LIMITS.keysPerTenant
 * keys, so one tenant cannot fill Redis with keys. Concurrent changes may pass the count together
 * and go a few over: the bound is on the order of keys, not exact.
 */
export async function checkFlowKeyQuota(jobs: Pick<JobStore, 'flowControlKeys'>, key: string): Promise<void> {
  const keys = await jobs.flowControlKeys();
  if (keys.includes(key) || keys.length < FLOW_LIMITS.keysPerTenant) return;
  throw new QuotaExceededError(
    `This tenant's jobs may use at most ${FLOW_LIMITS.keysPerTenant} flow control keys; give flowControl.key one of those in use, or remove flowControl from a job`,
    { maxFlowControlKeys: FLOW_LIMITS.keysPerTenant },
  );
}
