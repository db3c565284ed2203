import type { ObjectId } from 'mongodb';
import type { JobSnapshot, WaitingRun } from '../queue/queueEntry.js';
import type { RunStore } from '../store/runStore.js';

/** What of a delivery's run the read needs and fills in. */
export interface PayloadRun {
  _id: ObjectId;
  tenantId: string;
  jobId: ObjectId;
  payloadJson: string | null;
  payloadOmitted?: WaitingRun['payloadOmitted'];
}

/**
 * The run and job with the payload their queue entry left out (over the inline size, queueEntry.ts):
 * the execution's own (a trigger's override, which never changes), or the job's, with the target of
 * the job as read, so the request is one version's (an update since the entry was made applies to
 * it). The worker reads it once the delivery has its slots and before it claims the attempt, so a
 * delivery that waits for a slot reads nothing and a failed read uses up no attempt. Null when what
 * it reads is gone: the job was deleted while its execution waited (deleteJob cancels the waiting
 * executions after deleting the job; a worker can come first), or, never in practice, the execution.
 */
export async function withPayload<R extends PayloadRun>(
  runStore: Pick<RunStore, 'findPayload' | 'findJob'>,
  run: R,
  job: JobSnapshot,
): Promise<{ run: R; job: JobSnapshot } | null> {
  if (run.payloadOmitted === 'execution') {
    const payloadJson = await runStore.findPayload(run.tenantId, run._id);
    if (payloadJson === undefined) return null;
    return { run: { ...run, payloadJson, payloadOmitted: undefined }, job };
  }
  const found = await runStore.findJob(run.tenantId, run.jobId);
  if (!found) return null;
  return { run: { ...run, payloadOmitted: undefined }, job: { ...job, target: found.target, payloadJson: found.payloadJson } };
}
