import { readFileSync } from 'node:fs';
import type { RedisClient } from '../redis/redisClient.js';
import type { OverlapPolicy } from '../domain/job.js';
import { toGlobalId } from '../ids/globalId.js';
import type { Clock } from '../clock.js';
import { bufferedEntry } from '../queue/queueEntry.js';
import type { ExecutionQueues } from '../queue/executionQueues.js';
import type { ExecutionDoc } from '../domain/execution.js';

const RELEASE = readFileSync(new URL('./lua/releaseRun.lua', import.meta.url), 'utf8');

/** What the overlap policy says about an execution about to start. */
export type OverlapDecision =
  | { action: 'run' }
  | { action: 'skip'; reason: string }
  | { action: 'hold'; runningId: string }
  | { action: 'cancel-previous'; runningId: string };

/**
 * A job's running slot in Redis, shared by every worker: `SET NX` on a per-job key is the atomic
 * "is another execution of this job running?" check that the overlap policies need. The key
 * expires after the attempt's timeout plus a margin, so a crashed worker cannot block a job forever.
 * Uses the caller's Redis connection.
 */
export class OverlapGuard {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  private keys(jobId: string): [string, string] {
    // The job id is the hash tag: releaseRun.lua touches both keys (one slot on a Redis Cluster).
    return [`${this.prefix}:job:{${jobId}}:running`, `${this.prefix}:job:{${jobId}}:buffer`];
  }

  /** Takes the slot for `executionId` or says what the policy wants instead. ALLOW never touches Redis. */
  async decide(policy: OverlapPolicy, jobId: string, executionId: string, slotTtlMs: number): Promise<OverlapDecision> {
    if (policy === 'ALLOW') return { action: 'run' };
    const [running, buffer] = this.keys(jobId);
    let holder: string | null = null;
    // Retried because the slot can come free between the SET NX and the GET.
    for (let i = 0; i < 3 && holder === null; i++) {
      if (await this.redis.set(running, executionId, 'PX', slotTtlMs, 'NX')) return { action: 'run' };
      holder = await this.redis.get(running);
    }
    if (holder === null || holder === executionId) {
      // Ours already (a redelivery of the execution holding the slot): refresh it and run.
      await this.redis.set(running, executionId, 'PX', slotTtlMs);
      return { action: 'run' };
    }
    switch (policy) {
      case 'SKIP':
        return {
          action: 'skip',
          reason: `overlap policy SKIP: execution ${toGlobalId('Execution', holder)} of this job was still running`,
        };
      case 'BUFFER_ONE': {
        if (await this.redis.set(buffer, executionId, 'PX', 24 * 3600_000, 'NX')) return { action: 'hold', runningId: holder };
        const buffered = await this.redis.get(buffer);
        if (buffered === executionId) return { action: 'hold', runningId: holder };
        return {
          action: 'skip',
          reason: `overlap policy BUFFER_ONE: execution ${toGlobalId('Execution', buffered ?? '')} was already waiting for ${toGlobalId('Execution', holder)} to finish`,
        };
      }
      case 'CANCEL_PREVIOUS':
        return { action: 'cancel-previous', runningId: holder };
    }
  }

  /** Frees the slot held by `executionId`; returns the execution BUFFER_ONE held back, to run now. */
  async release(jobId: string, executionId: string): Promise<string | null> {
    const [running, buffer] = this.keys(jobId);
    const next = await this.redis.eval(RELEASE, 2, running, buffer, executionId);
    return typeof next === 'string' ? next : null;
  }
}

/** Frees the job's slot `executionId` holds and queues the execution BUFFER_ONE held back for it, due now. */
export async function releaseJobSlot(
  deps: { overlap: Pick<OverlapGuard, 'release'>; queues: Pick<ExecutionQueues, 'enqueue'>; clock: Clock },
  execution: Pick<ExecutionDoc, 'tenantId' | 'workload'>,
  jobId: string,
  executionId: string,
): Promise<void> {
  const buffered = await deps.overlap.release(jobId, executionId);
  if (buffered) await deps.queues.enqueue([bufferedEntry(buffered, execution.tenantId, execution.workload, deps.clock())]);
}
