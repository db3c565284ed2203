import type { ObjectId } from 'mongodb';

/**
 * The key of a job's occurrence at the nominal instant `nominal`, unique per tenant (the executions'
 * unique index): the scheduler's execution of that occurrence and a backfill's share it, so an
 * occurrence has one execution whoever creates it first.
 */
export function occurrenceKey(jobId: ObjectId, nominal: Date): string {
  return `${jobId.toHexString()}@${nominal.toISOString()}`;
}
