import type { ExecutionDoc } from '../domain/execution.js';
import { flowWaitReason } from '../domain/flowControl.js';
import type { JobDoc } from '../domain/job.js';
import type { FlowLimiter } from '../quotas/flowLimiter.js';

/**
 * Why a waiting execution has not started, when its job's flow-control key holds it back: the
 * workers note it in Redis when they refuse it (quotas/flowLimiter.ts), for as long as it waits,
 * so the answer costs no MongoDB write per wait. Null for anything else.
 */
export async function whyWaiting(
  deps: { jobs: { load(id: string): Promise<Pick<JobDoc, 'flowControl'> | null> }; flowWaits: Pick<FlowLimiter, 'waitNote'> },
  execution: Pick<ExecutionDoc, '_id' | 'tenantId' | 'jobId' | 'status'>,
): Promise<string | null> {
  if (execution.status !== 'QUEUED' && execution.status !== 'RETRYING') return null;
  const key = (await deps.jobs.load(execution.jobId.toHexString()))?.flowControl?.key;
  if (!key) return null;
  const noted = await deps.flowWaits.waitNote(execution.tenantId, key, execution._id.toHexString()).catch(() => null);
  return flowWaitReason(key, noted);
}
