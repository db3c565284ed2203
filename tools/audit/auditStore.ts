import type { Db } from 'mongodb';
import { FINAL_STATUSES } from '#kairos/domain/execution.js';
import type { JobDoc } from '#kairos/domain/job.js';
import type { CheckedExecution } from '../chaos/checkRun.js';
import { collections, type Collections } from '#kairos/store/collections.js';

/**
 * Cross-tenant reads for the chaos run's audit (tools/chaos), which checks a whole deployment from
 * outside, and for bench:scale's comparison. Never used by Kairos itself. Uses the caller's connection.
 */
export class AuditStore {
  private readonly c: Collections;

  constructor(db: Db) {
    this.c = collections(db);
  }

  /** The worker id of each RUNNING execution's current attempt. */
  async runningWorkerIds(): Promise<string[]> {
    const running = await this.c.executions.find({ status: 'RUNNING' }, { projection: { attempts: 1 } }).toArray();
    return running.map((e) => e.attempts.at(-1)?.workerId ?? '');
  }

  /** The sweep's query before the due index (a range on the schedule cursor), timed by bench:scale for comparison. */
  async firstDueByRange(horizon: Date, limit: number): Promise<JobDoc[]> {
    return this.c.jobs
      .find({ status: 'ACTIVE', scheduleCursor: { $lte: horizon } })
      .sort({ scheduleCursor: 1 })
      .limit(limit)
      .toArray();
  }

  /** ACTIVE jobs whose next occurrence at or before `until` is not materialised yet. */
  async countJobsBehind(until: Date): Promise<number> {
    return this.c.jobs.countDocuments({ status: 'ACTIVE', scheduleCursor: { $lte: until } });
  }

  /** Executions due at or before `until` that have not ended. */
  async countOpenExecutions(until: Date): Promise<number> {
    return this.c.executions.countDocuments({ scheduledFor: { $lte: until }, status: { $nin: [...FINAL_STATUSES] } });
  }

  async allJobs(): Promise<Pick<JobDoc, '_id' | 'schedule' | 'createdAt'>[]> {
    return this.c.jobs.find({}, { projection: { schedule: 1, createdAt: 1 } }).toArray();
  }

  /** Every execution, a SKIPPED budget record with the count of occurrences it stands for (checkRun expands it). */
  async allExecutions(): Promise<CheckedExecution[]> {
    return this.c.executions
      .find(
        {},
        {
          projection: {
            jobId: 1,
            occurrenceKey: 1,
            trigger: 1,
            status: 1,
            scheduledFor: 1,
            attempt: 1,
            attempts: 1,
            nextAttemptAt: 1,
            skippedCount: 1,
            skippedUntil: 1,
          },
        },
      )
      .toArray();
  }
}
