import type { AnyBulkWriteOperation, ObjectId } from 'mongodb';
import {
  CANCELLED_STATUS,
  RUNNING_STATUS,
  attemptEndFields,
  executionEndFields,
  type AttemptDoc,
  type AttemptEnd,
  type ExecutionDoc,
  type ExecutionStatus,
} from '../domain/execution.js';
import type { Collections } from './collections.js';
import { isMongoUnavailable } from './mongo.js';
import { bulkUpdate } from './bulkUpdates.js';

/** An attempt whose start never reached MongoDB (the deferred claim): what the execution must still be, and the start. */
export interface UnwrittenStart {
  from: { status: ExecutionStatus; attempt: number };
  startedAt: Date;
  workerId: string;
}

/** An attempt's end: the execution's fields (decided by decideAttemptEnd) and the attempt's outcome. */
export interface EndRequest extends AttemptEnd {
  id: ObjectId;
  attempt: number;
  /** Set when the attempt's start was never written: the end records it too, as a compare-and-set on `from`. */
  start: UnwrittenStart | null;
}

/**
 * What an end did: `ended` when it ended the attempt; else `addedToCancelled` when the execution had
 * been cancelled while the attempt ran unwritten, and the attempt was added to it. `at` is the write's instant.
 */
export interface EndResult {
  ended: boolean;
  addedToCancelled: boolean;
  at: Date;
}

type UnwrittenEnd = EndRequest & { start: UnwrittenStart };

function hasUnwrittenStart(r: EndRequest): r is UnwrittenEnd {
  return r.start !== null;
}

/**
 * Writes attempts' ends, a group-committed batch at a time (RunStore.endAttempt): ends that write
 * the same fields go out as one updateMany, all in one bulk, each a compare-and-set from RUNNING (or,
 * for an unwritten start, from the state the start expected); `at` is the batch's instant.
 */
export class AttemptEnds {
  constructor(
    private readonly c: Collections,
    /** Each statement as its own command (bulkUpdates.ts). */
    private readonly oneByOne: boolean,
  ) {}

  /** The batch's ends at `now` (finishedAt, updatedAt): for each, whether it ended its attempt. */
  async writeEnds(requests: EndRequest[], now: Date): Promise<EndResult[]> {
    const groups = new Map<string, { attempt: number; ids: ObjectId[]; set: Record<string, unknown> }>();
    const unwritten: AnyBulkWriteOperation<ExecutionDoc>[] = [];
    for (const r of requests) {
      if (hasUnwrittenStart(r)) {
        unwritten.push(this.unwrittenEnd(r, now));
        continue;
      }
      const set = this.endFields(r, now);
      const key = JSON.stringify(set);
      const group = groups.get(key);
      if (group) group.ids.push(r.id);
      else groups.set(key, { attempt: r.attempt, ids: [r.id], set });
    }
    // On FerretDB an `_id: {$in}` filter reads the whole collection (only `_id` equality has an
    // index there), so each end goes by `_id`; MongoDB takes one updateMany per group from its index.
    const ops = [...groups.values()].flatMap((g): AnyBulkWriteOperation<ExecutionDoc>[] =>
      g.ids.length === 1 || this.oneByOne
        ? g.ids.map((_id) => ({ updateOne: { filter: { _id, attempt: g.attempt, status: RUNNING_STATUS }, update: { $set: g.set } } }))
        : [{ updateMany: { filter: { _id: { $in: g.ids }, attempt: g.attempt, status: RUNNING_STATUS }, update: { $set: g.set } } }],
    );
    let all = false;
    try {
      const result = await bulkUpdate(this.c.executions, [...unwritten, ...ops], this.oneByOne);
      all = result.matchedCount === requests.length;
    } catch (error) {
      if (isMongoUnavailable(error)) throw error;
    }
    if (all) return requests.map(() => ({ ended: true, addedToCancelled: false, at: now }));
    // Some did not match: one at a time, each also matching the end it may have got from the bulk
    // (or, for an unwritten start, its own start written after all by a claim whose answer was lost:
    // its own attempt, never another worker's attempt of the same number).
    return Promise.all(
      requests.map(async (r) => {
        // The bulk may have failed before this statement ran: an unwritten start's own compare-and-set first.
        if (hasUnwrittenStart(r) && (await bulkUpdate(this.c.executions, [this.unwrittenEnd(r, now)], true)).matchedCount === 1) {
          return { ended: true, addedToCancelled: false, at: now };
        }
        const slot = `attempts.${r.attempt - 1}`;
        const own = hasUnwrittenStart(r) ? { [`${slot}.workerId`]: r.start.workerId, [`${slot}.startedAt`]: r.start.startedAt } : {};
        const result = await this.c.executions.updateOne(
          {
            _id: r.id,
            attempt: r.attempt,
            ...own,
            $or: [{ status: RUNNING_STATUS }, { status: r.status, [`${slot}.outcome`]: r.outcome }],
          },
          { $set: this.endFields(r, now) },
        );
        const ended = result.matchedCount === 1;
        const addedToCancelled = !ended && hasUnwrittenStart(r) && (await this.addToCancelled(r, now));
        return { ended, addedToCancelled, at: now };
      }),
    );
  }

  /** The execution's fields an end sets, and the ended attempt's (by its slot in `attempts`): domain/execution.ts says which. */
  private endFields(r: EndRequest, now: Date): Record<string, unknown> {
    const slot = `attempts.${r.attempt - 1}`;
    return {
      ...executionEndFields(r, now),
      ...Object.fromEntries(Object.entries(attemptEndFields(r, now)).map(([field, value]) => [`${slot}.${field}`, value])),
    };
  }

  /** The attempt an end records whole when its start was never written. */
  private wholeAttempt(r: UnwrittenEnd, now: Date): AttemptDoc {
    return { number: r.attempt, startedAt: r.start.startedAt, ...attemptEndFields(r, now), workerId: r.start.workerId };
  }

  /** An end whose start was never written: one statement, a compare-and-set on the state the start expected. */
  private unwrittenEnd(r: UnwrittenEnd, now: Date): AnyBulkWriteOperation<ExecutionDoc> {
    return {
      updateOne: {
        filter: { _id: r.id, status: r.start.from.status, attempt: r.start.from.attempt },
        update: {
          $set: {
            ...executionEndFields(r, now),
            attempt: r.attempt,
            deadlineAt: null,
            ...(r.attempt === 1 ? { startedAt: r.start.startedAt } : {}),
          },
          $push: { attempts: this.wholeAttempt(r, now) },
        },
      },
    };
  }

  /** A cancel reached the execution while its attempt ran unwritten: the attempt still goes on its record. */
  private async addToCancelled(r: UnwrittenEnd, now: Date): Promise<boolean> {
    const result = await this.c.executions.updateOne(
      { _id: r.id, status: CANCELLED_STATUS, attempt: r.start.from.attempt },
      {
        $set: { attempt: r.attempt, updatedAt: now, ...(r.attempt === 1 ? { startedAt: r.start.startedAt } : {}) },
        $push: { attempts: this.wholeAttempt(r, now) },
      },
    );
    return result.matchedCount === 1;
  }
}
