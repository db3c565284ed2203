import type { AnyBulkWriteOperation } from 'mongodb';
import type { ObjectId } from 'mongodb';
import { RUNNING_STATUS, type AttemptDoc, type ExecutionDoc, type ExecutionStatus } from '../domain/execution.js';
import type { Collections } from './collections.js';
import { isMongoUnavailable } from './mongo.js';
import { bulkUpdate } from './bulkUpdates.js';

/** A claim: the execution, still as the worker expects it, becomes RUNNING with a new attempt. */
export interface ClaimRequest {
  id: ObjectId;
  /** What it must still be: its status and attempts started (a compare-and-set on both). */
  from: { status: ExecutionStatus; attempt: number };
  workerId: string;
  /** When the attempt started (it may have run for a while before its start is written). */
  startedAt: Date;
  /** How long after its start the attempt is overdue (its timeout plus the queue lock). */
  deadlineAfterMs: number;
}

/**
 * Writes attempts' starts, a group-committed batch at a time (RunStore.claim), without reading the
 * executions first; each request learns whether its own compare-and-set matched.
 */
export class AttemptStarts {
  constructor(
    private readonly c: Collections,
    /** Each statement as its own command (bulkUpdates.ts). */
    private readonly oneByOne: boolean,
  ) {}

  /** The batch's starts at `now` (updatedAt); `claimed` for each whose execution still had its `from`. */
  async writeClaims(requests: ClaimRequest[], now: Date): Promise<{ claimed: boolean }[]> {
    const ops: AnyBulkWriteOperation<ExecutionDoc>[] = requests.map((r) => {
      const attempt: AttemptDoc = {
        number: r.from.attempt + 1,
        startedAt: r.startedAt,
        finishedAt: null,
        outcome: null,
        error: null,
        httpStatus: null,
        workerId: r.workerId,
      };
      return {
        updateOne: {
          filter: { _id: r.id, status: r.from.status, attempt: r.from.attempt },
          update: {
            $set: {
              status: RUNNING_STATUS,
              deadlineAt: new Date(r.startedAt.getTime() + r.deadlineAfterMs),
              attempt: attempt.number,
              nextAttemptAt: null,
              updatedAt: now,
              // The execution's start is its first attempt's.
              ...(attempt.number === 1 ? { startedAt: r.startedAt } : {}),
            },
            $push: { attempts: attempt },
          },
        },
      };
    });
    let all = false;
    try {
      all = (await bulkUpdate(this.c.executions, ops, this.oneByOne)).matchedCount === ops.length;
    } catch (error) {
      if (isMongoUnavailable(error)) throw error;
    }
    if (all) return requests.map(() => ({ claimed: true }));
    // Some did not match (or a statement failed): read back which of them are ours. Each claim of
    // (execution, attempt) is exclusive through the worker's Redis claim, so ours is recognisable.
    const found = await Promise.all(
      requests.map((r) => this.c.executions.findOne({ _id: r.id }, { projection: { status: 1, attempt: 1, attempts: 1 } })),
    );
    return found.map((doc, i) => {
      const mine =
        doc?.status === RUNNING_STATUS && doc.attempt === requests[i].from.attempt + 1 ? doc.attempts[doc.attempt - 1] : undefined;
      return { claimed: mine?.workerId === requests[i].workerId && mine.startedAt.getTime() === requests[i].startedAt.getTime() };
    });
  }
}
